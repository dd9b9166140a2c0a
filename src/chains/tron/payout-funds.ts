import Decimal from 'decimal.js';
import { utils } from 'tronweb';
import type { NetworkCode } from '../../domain/networks';
import { fromBaseUnits, toBaseUnits } from '../amount';
import type { PayoutFunds, PayoutFundsRequest, PayoutShortfall } from '../types';
import { tronHex } from './codec';
import { TronAdapterError } from './errors';
import type { TronNode } from './node';
import type { TronConstantResult } from './node-types';

/** Energy of a USDT transfer to an address that never held USDT (CHAINS.md, the treasury table): used when the node cannot simulate it (the wallet lacks the tokens). */
const FALLBACK_ENERGY = 130_285;
/** Bandwidth of one TRC20 transfer with margin (as payouts.ts). */
const TRANSFER_BYTES = 400;

export interface TronFundsDeps {
  readonly network: NetworkCode;
  readonly node: TronNode;
  /** base58 token address. */
  readonly token: string;
  readonly decimals: number;
}

/**
 * A constant call the node did not really answer: `{}` (TronGrid's backends out of sync answer that
 * for state they have not reached) or no `result`. Retried by the host, never taken as a balance.
 */
export class TronConstantUnansweredError extends TronAdapterError {
  override readonly name = 'TronConstantUnansweredError';
  readonly code = 'rpc_unavailable';
  constructor(selector: string, answer: TronConstantResult) {
    super(`TRON node gave no answer to ${selector}: ${JSON.stringify(answer).slice(0, 200)}`, { selector });
  }
}

/**
 * ChainAdapter.payoutFunds on TRON: the hot wallet's USDT (balanceOf) against this payout plus those
 * in flight, and its TRX against the energy and bandwidth they would burn (energy as the node
 * simulates the transfer, or the worst case when it cannot; staked energy and free bandwidth first).
 * The fee limit is not a shortfall (the signing says so: payout_fee_limit_too_low).
 */
export async function tronPayoutFunds(deps: TronFundsDeps, wallet: string, request: PayoutFundsRequest): Promise<PayoutFunds> {
  const { node, token, decimals } = deps;
  const units = toBaseUnits(request.amount, decimals);
  const neededTokens = units + toBaseUnits(request.inFlight.amount, decimals);
  const owner = tronHex(wallet);
  const contract = tronHex(token);
  const balanceAnswer = await node.constant({ ownerHex: owner, contractHex: contract, selector: 'balanceOf(address)', parameter: abiParams(['address'], [owner]) });
  const word = balanceAnswer.constant_result?.[0];
  if (balanceAnswer.result?.result !== true || word === undefined) throw new TronConstantUnansweredError('balanceOf(address)', balanceAnswer);
  const tokens = BigInt((utils.abi.decodeParams([], ['uint256'], `0x${word}`) as [bigint])[0]);
  const energy = await transferEnergy(deps, owner, request.to, units);
  const [params, resources, account] = await Promise.all([node.chainParameters(), node.resources(owner), node.account(owner)]);
  const param = (key: string, fallback: number): number => params.chainParameter?.find((p) => p.key === key)?.value ?? fallback;
  const payouts = request.inFlight.count + 1;
  const stakedEnergy = Math.max(0, (resources.EnergyLimit ?? 0) - (resources.EnergyUsed ?? 0));
  const bandwidth = Math.max(0, (resources.freeNetLimit ?? 0) - (resources.freeNetUsed ?? 0)) + Math.max(0, (resources.NetLimit ?? 0) - (resources.NetUsed ?? 0));
  const energyBurn = new Decimal(param('getEnergyFee', 100)).mul(Math.max(0, energy * payouts - stakedEnergy));
  const bandwidthBurn = new Decimal(param('getTransactionFee', 1000)).mul(Math.max(0, TRANSFER_BYTES * payouts - bandwidth));
  const burn = energyBurn.add(bandwidthBurn);
  // getaccount answers {} for an address that never received TRX: it holds 0.
  const sun = new Decimal(account.balance ?? 0);
  const shortfalls: PayoutShortfall[] = [];
  if (tokens < neededTokens) shortfalls.push({ kind: 'token', asset: 'USDT', balance: fromBaseUnits(tokens, decimals), needed: fromBaseUnits(neededTokens, decimals) });
  if (sun.lt(burn)) shortfalls.push({ kind: 'gas', asset: 'TRX', balance: trx(sun), needed: trx(burn) });
  return { wallet, shortfalls };
}

/** The transfer's energy as the node simulates it; the worst case when the simulation reverts (no tokens yet). */
async function transferEnergy(deps: TronFundsDeps, owner: string, to: string, units: bigint): Promise<number> {
  const selector = 'transfer(address,uint256)';
  const answer = await deps.node.constant({ ownerHex: owner, contractHex: tronHex(deps.token), selector, parameter: abiParams(['address', 'uint256'], [tronHex(to), units.toString()]) });
  if (answer.result === undefined) throw new TronConstantUnansweredError(selector, answer);
  const failed = answer.result.result !== true || answer.transaction?.ret?.[0]?.ret === 'FAILED';
  return failed || answer.energy_used === undefined ? FALLBACK_ENERGY : Math.max(answer.energy_used, 0);
}

function trx(sun: Decimal): string {
  return sun.div(1_000_000).toFixed();
}

/** ABI-encoded parameters (tronweb's encoder takes 41-prefixed hex addresses), without 0x. */
function abiParams(types: string[], values: unknown[]): string {
  return utils.abi.encodeParams(types, values).replace(/^0x/, '');
}
