import { Eip1559FeesNotSupportedError, type PublicClient } from 'viem';

export type FeeParams = { readonly type: 'eip1559'; readonly maxFeePerGas: bigint; readonly maxPriorityFeePerGas: bigint } | { readonly type: 'legacy'; readonly gasPrice: bigint };

/** The node's current fee suggestion: EIP-1559 where blocks carry a base fee, legacy otherwise. */
export async function currentFees(client: PublicClient): Promise<FeeParams> {
  try {
    const fees = await client.estimateFeesPerGas({ type: 'eip1559', chain: null });
    return { type: 'eip1559', maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };
  } catch (error) {
    if (!(error instanceof Eip1559FeesNotSupportedError)) throw error;
    return { type: 'legacy', gasPrice: await client.getGasPrice() };
  }
}

/** +12.5% rounded up, at least +1 wei: above the replacement minimum of geth (10%) and EIP-1559 pools. */
export function bumped(value: bigint): bigint {
  const step = (value + 7n) / 8n;
  return value + (step > 0n ? step : 1n);
}

/** Fees for a replacement: at least 12.5% above the stuck ones, and never below today's suggestion. */
export function replacementFees(stuck: FeeParams, now: FeeParams): FeeParams {
  const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
  if (stuck.type === 'legacy') {
    const suggested = now.type === 'legacy' ? now.gasPrice : now.maxFeePerGas;
    return { type: 'legacy', gasPrice: max(bumped(stuck.gasPrice), suggested) };
  }
  const priority = max(bumped(stuck.maxPriorityFeePerGas), now.type === 'eip1559' ? now.maxPriorityFeePerGas : 0n);
  const cap = max(max(bumped(stuck.maxFeePerGas), now.type === 'eip1559' ? now.maxFeePerGas : now.gasPrice), priority);
  return { type: 'eip1559', maxFeePerGas: cap, maxPriorityFeePerGas: priority };
}

/** The most one gas unit can cost under these fees (EIP-1559: maxFeePerGas; legacy: gasPrice). */
export function maxFeePerGas(fees: FeeParams): bigint {
  return fees.type === 'eip1559' ? fees.maxFeePerGas : fees.gasPrice;
}
