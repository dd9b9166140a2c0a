import Decimal from 'decimal.js';
import { utils } from 'tronweb';
import { ValidationError } from '../../domain/errors';
import type { NetworkCode } from '../../domain/networks';
import { fromBaseUnits, toBaseUnits } from '../amount';
import type { HotWalletKey } from '../codec';
import type { PayoutRequest, SignedPayout } from '../types';
import { tronHex } from './codec';
import type { TronNode } from './node';
import { TronConstantUnansweredError } from './payout-funds';
import { TronBroadcastRefusedError, TronFeeLimitTooLowError, TronHotWalletShortError, TronPayoutRejectedError } from './payout-errors';
import type { SignedTronTransaction, TronRefBlock, TronwebSigner } from './tronweb-signer';
import { InconsistentChainError } from '../sync/errors';
import { EXPIRATION_WINDOW_MS } from './expiry';
import { parseBlock } from './parse-block';

/** Bandwidth of a TRC20 transfer (~345 bytes) with margin; paid from free bandwidth or burnt at getTransactionFee sun/byte. */
const TRANSFER_BYTES = 400;
const SUN_DECIMALS = 6;

export interface TronPayoutDeps {
  readonly network: NetworkCode;
  readonly node: TronNode;
  readonly signer: TronwebSigner;
  readonly hot: () => HotWalletKey;
  readonly isValidAddress: (address: string) => boolean;
  /** base58 token address. */
  readonly token: string;
  readonly decimals: number;
  readonly feeLimitSun: number;
}

/**
 * USDT payouts from the hot wallet: checked (balances, energy estimated by the node's simulation,
 * fee limit), built and signed locally; the host stores the result before broadcasting it.
 * meta: { payoutId, from, to, amount, expiration, refBlock } (expiration in ms of chain time,
 * EXPIRATION_WINDOW_MS after the reference block `refBlock`: the window TronExpiryProof reads).
 */
export class TronPayouts {
  constructor(private readonly deps: TronPayoutDeps) {}

  async sign(request: Pick<PayoutRequest, 'id' | 'to' | 'amount'>): Promise<SignedPayout> {
    const { deps } = this;
    if (!deps.isValidAddress(request.to)) throw new ValidationError('invalid_address', `not a TRON address: ${request.to}`, 'to');
    const units = toBaseUnits(request.amount, deps.decimals);
    if (units <= 0n) throw new ValidationError('invalid_amount', 'payout amount must be positive', 'amount');
    const hot = deps.hot();
    await this.assertTokenBalance(hot.address, units);
    const energy = await this.estimateEnergy(request.id, hot.address, request.to, units);
    await this.assertTrxForFees(hot.address, energy);
    const ref = await this.refBlock();
    const tx = await deps.signer.transfer({
      ref,
      token: deps.token,
      from: hot.address,
      to: request.to,
      units,
      feeLimitSun: deps.feeLimitSun,
      privateKeyHex: hot.privateKeyHex,
      memo: `chainpay payout ${request.id}`,
    });
    return {
      txHash: tx.txID,
      raw: JSON.stringify(tx),
      meta: { payoutId: request.id, from: hot.address, to: request.to, amount: request.amount, expiration: tx.raw_data.expiration, refBlock: ref.height },
    };
  }

  /** The head block as the reference block; the transaction expires EXPIRATION_WINDOW_MS of chain time after it. */
  private async refBlock(): Promise<TronRefBlock> {
    const head = parseBlock(await this.deps.node.headHeader());
    if (head === null) throw new InconsistentChainError('wallet/getblock returned no block', {});
    const { height, hash, timestamp } = head.header;
    const time = timestamp.getTime();
    return { height, ref_block_bytes: hash.slice(12, 16), ref_block_hash: hash.slice(16, 32), expiration: time + EXPIRATION_WINDOW_MS, timestamp: time };
  }

  /**
   * Sends the stored transaction. DUP_TRANSACTION_ERROR: the node has it already (success).
   * TRANSACTION_EXPIRATION_ERROR / TAPOS_ERROR: this transaction can no longer be accepted; nothing
   * to send, and not a failure either (it may have been mined before): the status check decides,
   * and only once its expiry is proven on the solidified chain (payoutStatus `expired`) does the host
   * sign the payout anew.
   */
  async broadcast(payout: SignedPayout): Promise<void> {
    const tx = JSON.parse(payout.raw) as SignedTronTransaction;
    const answer = await this.deps.node.broadcast(tx);
    if (answer.result === true) return;
    const code = answer.code ?? 'OTHER_ERROR';
    if (code === 'DUP_TRANSACTION_ERROR' || code === 'TRANSACTION_EXPIRATION_ERROR' || code === 'TAPOS_ERROR') return;
    throw new TronBroadcastRefusedError(payout.txHash, code, hexText(answer.message));
  }

  private async assertTokenBalance(wallet: string, units: bigint): Promise<void> {
    const { node, token, decimals, network } = this.deps;
    const answer = await node.constant({ ownerHex: tronHex(wallet), contractHex: tronHex(token), selector: 'balanceOf(address)', parameter: abiParams(['address'], [tronHex(wallet)]) });
    const word = answer.constant_result?.[0];
    // No answer (`{}` from a backend out of sync, or no result): retried, never a refusal of the payout.
    if (answer.result?.result !== true || word === undefined) throw new TronConstantUnansweredError('balanceOf(address)', answer);
    const balance = BigInt((utils.abi.decodeParams([], ['uint256'], `0x${word}`) as [bigint])[0]);
    if (balance < units) throw new TronHotWalletShortError(network, wallet, 'USDT', fromBaseUnits(balance, decimals), fromBaseUnits(units, decimals));
  }

  /** Energy of the transfer as the node simulates it now (more when the payee never held USDT). */
  private async estimateEnergy(payoutId: string, from: string, to: string, units: bigint): Promise<number> {
    const answer = await this.deps.node.constant({
      ownerHex: tronHex(from),
      contractHex: tronHex(this.deps.token),
      selector: 'transfer(address,uint256)',
      parameter: abiParams(['address', 'uint256'], [tronHex(to), units.toString()]),
    });
    if (answer.result === undefined) throw new TronConstantUnansweredError('transfer(address,uint256)', answer);
    const failed = answer.result.result !== true || answer.transaction?.ret?.[0]?.ret === 'FAILED';
    if (failed) throw new TronPayoutRejectedError(payoutId, `the node's simulation of the transfer failed: ${answer.result?.code ?? 'REVERT'} ${hexText(answer.result?.message)}`.trim());
    const word = answer.constant_result?.[0];
    if (word !== undefined && word.length === 64 && BigInt(`0x${word}`) === 0n) throw new TronPayoutRejectedError(payoutId, 'the token returned false for the transfer');
    return answer.energy_used ?? 0;
  }

  /** TRX for the energy not covered by staking (capped by the fee limit) and the bandwidth not covered by free bandwidth. */
  private async assertTrxForFees(wallet: string, energy: number): Promise<void> {
    const { node, network, feeLimitSun } = this.deps;
    const [params, resources, account] = await Promise.all([node.chainParameters(), node.resources(tronHex(wallet)), node.account(tronHex(wallet))]);
    const param = (key: string, fallback: number): number => params.chainParameter?.find((p) => p.key === key)?.value ?? fallback;
    const energyFee = new Decimal(param('getEnergyFee', 100));
    const energyCost = energyFee.mul(energy);
    if (energyCost.gt(feeLimitSun)) throw new TronFeeLimitTooLowError(network, trx(energyCost), trx(new Decimal(feeLimitSun)));
    const stakedEnergy = Math.max(0, (resources.EnergyLimit ?? 0) - (resources.EnergyUsed ?? 0));
    const bandwidth = Math.max(0, (resources.freeNetLimit ?? 0) - (resources.freeNetUsed ?? 0)) + Math.max(0, (resources.NetLimit ?? 0) - (resources.NetUsed ?? 0));
    const burn = energyFee.mul(Math.max(0, energy - stakedEnergy)).add(bandwidth >= TRANSFER_BYTES ? 0 : new Decimal(param('getTransactionFee', 1000)).mul(TRANSFER_BYTES));
    const balance = new Decimal(account.balance ?? 0);
    if (balance.lt(burn)) throw new TronHotWalletShortError(network, wallet, 'TRX', trx(balance), trx(burn));
  }
}

function trx(sun: Decimal): string {
  return sun.div(10 ** SUN_DECIMALS).toFixed();
}

/** ABI-encoded parameters (tronweb's encoder takes 41-prefixed hex addresses), without 0x. */
function abiParams(types: string[], values: unknown[]): string {
  return utils.abi.encodeParams(types, values).replace(/^0x/, '');
}

/** java-tron sends broadcast messages hex-encoded. */
function hexText(hex: string | undefined): string {
  if (hex === undefined || !/^([0-9a-fA-F]{2})*$/.test(hex)) return hex ?? '';
  return Buffer.from(hex, 'hex').toString('utf8');
}
