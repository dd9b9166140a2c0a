import { ValidationError } from '../../domain/errors';
import type { ChainFamily, NetworkCode } from '../../domain/networks';
import { PAYOUT_EXPIRED_CODE, type SignedPayout } from '../types';
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
  /** PayoutRequest.attempt when above 0 (a signature made after the previous one expired). */
  readonly attempt?: number;
  /**
   * Families whose transactions expire (DEVNET_PAYOUT_TTL_MS): epoch ms on the devnet clock after
   * which no block includes it (TRON expiration, TON valid_until, SOLANA lastValidBlockHeight).
   */
  readonly validUntilMs?: number;
  /** PayoutRequest.comment (TON: the withdrawal's memo), carried by the transfer as its text comment. */
  readonly memo?: string;
}

/**
 * How long a devnet payout stays valid, per family, as its chain has it: TRON sets `expiration` =
 * ref block time + 60 s; TON wallets take a `valid_until` (60 s here); SOLANA's blockhash lasts ~150
 * blocks (~60 s). EVM has none: a nonce never expires (a stuck payout is bumped instead).
 */
export const DEVNET_PAYOUT_TTL_MS: Readonly<Partial<Record<ChainFamily, number>>> = { tron: 60_000, ton: 60_000, solana: 60_000 };

/**
 * raw = hex(JSON body) and txHash = hash(raw): a raw edited after signing is refused. Without a
 * validity the same withdrawal signed twice gives the same transaction; with one (a later clock) it
 * does not, as on the real chains, which is why the host stores a payout before broadcasting it.
 */
export function encodeDevnetPayout(family: ChainFamily, body: Omit<DevnetPayoutBody, 'v'>): SignedPayout {
  const ordered: DevnetPayoutBody = {
    v: 1,
    network: body.network,
    id: body.id,
    from: body.from,
    to: body.to,
    amount: body.amount,
    ...(body.attempt ? { attempt: body.attempt } : {}),
    ...(body.validUntilMs !== undefined ? { validUntilMs: body.validUntilMs } : {}),
    ...(body.memo !== undefined ? { memo: body.memo } : {}),
  };
  const raw = Buffer.from(JSON.stringify(ordered), 'utf8').toString('hex');
  const meta = { id: body.id, ...(ordered.attempt ? { attempt: ordered.attempt } : {}), ...(ordered.validUntilMs !== undefined ? { validUntilMs: ordered.validUntilMs } : {}) };
  return { txHash: deterministicTxHash(family, `devnet-payout:${raw}`), raw, meta };
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

/** Broadcast too late: the devnet node refuses it, as TRON's does (TRANSACTION_EXPIRATION_ERROR). */
export class DevnetPayoutExpiredError extends Error {
  override readonly name = 'DevnetPayoutExpiredError';
  readonly code = PAYOUT_EXPIRED_CODE;
  readonly details: { network: NetworkCode; txHash: string; validUntil: string; chainTime: string };
  constructor(network: NetworkCode, txHash: string, validUntilMs: number, chainTimeMs: number) {
    super(`${network} payout ${txHash} expired at ${new Date(validUntilMs).toISOString()} (chain time ${new Date(chainTimeMs).toISOString()}): it can no longer be sent`);
    this.details = { network, txHash, validUntil: new Date(validUntilMs).toISOString(), chainTime: new Date(chainTimeMs).toISOString() };
  }
}
