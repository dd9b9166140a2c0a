import { InconsistentChainError } from './errors';
import type { BlockHeader, BlockSource } from './types';

/** Fetches headers, at most `concurrency` at a time. A missing block means the source lags: retried. */
export async function fetchHeaders(source: BlockSource, heights: readonly number[], concurrency: number): Promise<Map<number, BlockHeader>> {
  const out = new Map<number, BlockHeader>();
  for (let i = 0; i < heights.length; i += concurrency) {
    const chunk = heights.slice(i, i + concurrency);
    const blocks = await Promise.all(chunk.map((h) => source.block(h)));
    blocks.forEach((block, j) => {
      const height = chunk[j]!;
      if (block === null) throw new InconsistentChainError(`block ${height} not available yet`, { height });
      if (block.height !== height) throw new InconsistentChainError(`asked block ${height}, got ${block.height}`, { height });
      out.set(height, block);
    });
  }
  return out;
}

/** Each header's parent is the previous header: the headers come from one branch. */
export function assertLinked(headers: ReadonlyMap<number, BlockHeader>, start: number, end: number): void {
  for (let h = start + 1; h <= end; h++) {
    const block = headers.get(h)!;
    const parent = headers.get(h - 1)!;
    if (block.parentHash !== parent.hash) {
      throw new InconsistentChainError(`block ${h} does not extend block ${h - 1}`, { height: h });
    }
  }
}
