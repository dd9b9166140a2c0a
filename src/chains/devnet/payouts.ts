import { ValidationError } from '../../domain/errors';
import type { ChainFamily, NetworkCode } from '../../domain/networks';
import type { SignedPayout } from '../types';
import { deterministicTxHash } from './hashes';

/** What a devnet "signed transaction" carries: enough to include it after a restart, from raw alone. */
export interface DevnetPayoutBody {
  readonly v: 1;
  readonly network: NetworkCode;
  readonly id: string;
  readonly from: string;
  readonly to: string;
  /** Canonical decimal token units. */
  readonly amount: string;
}

/**
 * raw = hex(JSON body) and txHash = hash(raw): the same withdrawal signed twice gives the same
 * transaction (persisted-before-broadcast semantics), and a raw edited after signing is refused.
 */
export function encodeDevnetPayout(family: ChainFamily, body: Omit<DevnetPayoutBody, 'v'>): SignedPayout {
  const ordered: DevnetPayoutBody = { v: 1, network: body.network, id: body.id, from: body.from, to: body.to, amount: body.amount };
  const raw = Buffer.from(JSON.stringify(ordered), 'utf8').toString('hex');
  return { txHash: deterministicTxHash(family, `devnet-payout:${raw}`), raw, meta: { id: body.id } };
}

export function decodeDevnetPayout(family: ChainFamily, network: NetworkCode, payout: SignedPayout): DevnetPayoutBody {
  let body: DevnetPayoutBody;
  try {
    body = JSON.parse(Buffer.from(payout.raw, 'hex').toString('utf8')) as DevnetPayoutBody;
  } catch {
    throw new ValidationError('payout_invalid', 'not a devnet payout transaction', 'raw');
  }
  if (body?.v !== 1 || body.network !== network || deterministicTxHash(family, `devnet-payout:${payout.raw}`) !== payout.txHash) {
    throw new ValidationError('payout_invalid', `devnet payout does not match its hash or network ${network}`, 'raw', { txHash: payout.txHash });
  }
  return body;
}
