import {
  BaseError,
  encodeFunctionData,
  formatEther,
  formatUnits,
  getAddress,
  HttpRequestError,
  LimitExceededRpcError,
  ResourceUnavailableRpcError,
  TimeoutError,
  type Hex,
  type PublicClient,
} from 'viem';
import { toBaseUnits } from '../amount';
import type { PayoutFunds, PayoutFundsRequest, PayoutShortfall } from '../types';
import { ERC20_ABI } from './abi';
import { currentFees, maxFeePerGas } from './fees';

/** viem errors of a node that did not answer (transport, timeout, 429, 5xx / busy): retried, never taken as the chain's answer. */
export const TRANSIENT = [HttpRequestError, TimeoutError, LimitExceededRpcError, ResourceUnavailableRpcError];

/** What the check needs of the EVM payout deps. */
export interface EvmFundsDeps {
  readonly client: PublicClient;
  readonly token: Hex;
  readonly decimals: number;
  /** The gas coin's symbol (EVM_GAS_COIN). */
  readonly gasCoin: string;
  readonly gasHeadroomPercent: number;
}

/** Gas of a USDT transfer when the node cannot simulate it (the wallet lacks the tokens): above a real one (~35k-65k). */
const FALLBACK_TRANSFER_GAS = 100_000n;

/**
 * ChainAdapter.payoutFunds on an EVM chain: the hot wallet's USDT (balanceOf) against this payout plus
 * those in flight, and its gas coin against the most their gas can cost (estimate with headroom ×
 * maxFeePerGas, per payout). A node that does not answer throws (the host retries).
 */
export async function evmPayoutFunds(deps: EvmFundsDeps, hot: Hex, request: PayoutFundsRequest): Promise<PayoutFunds> {
  const { client, token, decimals } = deps;
  const units = toBaseUnits(request.amount, decimals);
  const neededTokens = units + toBaseUnits(request.inFlight.amount, decimals);
  const [tokens, coins, fees] = await Promise.all([
    client.readContract({ address: token, abi: ERC20_ABI, functionName: 'balanceOf', args: [hot] }),
    client.getBalance({ address: hot }),
    currentFees(client),
  ]);
  const gas = await transferGas(deps, hot, request.to, units);
  const neededCoins = gas * maxFeePerGas(fees) * BigInt(request.inFlight.count + 1);
  const shortfalls: PayoutShortfall[] = [];
  if (tokens < neededTokens) shortfalls.push({ kind: 'token', asset: 'USDT', balance: formatUnits(tokens, decimals), needed: formatUnits(neededTokens, decimals) });
  if (coins < neededCoins) shortfalls.push({ kind: 'gas', asset: deps.gasCoin, balance: formatEther(coins), needed: formatEther(neededCoins) });
  return { wallet: getAddress(hot), shortfalls };
}

/** The transfer's gas with the configured headroom; the fallback when the node answers that the call fails (no tokens yet). */
async function transferGas(deps: EvmFundsDeps, hot: Hex, to: string, units: bigint): Promise<bigint> {
  const data = encodeFunctionData({ abi: ERC20_ABI, functionName: 'transfer', args: [getAddress(to.toLowerCase()), units] });
  let gas: bigint;
  try {
    gas = await deps.client.estimateGas({ account: hot, to: deps.token, data });
  } catch (error) {
    // By error class: a node that did not answer is retried by the host; one that answered "reverts" gets the fallback.
    const transient = !(error instanceof BaseError) || error.walk((e) => TRANSIENT.some((cls) => e instanceof cls));
    if (transient) throw error;
    gas = FALLBACK_TRANSFER_GAS;
  }
  return (gas * BigInt(100 + deps.gasHeadroomPercent)) / 100n;
}
