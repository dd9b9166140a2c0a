import { isBloom, isContractAddressInBloom, isTopicInBloom } from 'ethereum-bloom-filters';
import type { RpcLog } from 'viem';
import { InconsistentChainError } from '../sync/errors';
import type { BlockHeader } from '../sync/types';
import { TRANSFER_TOPIC } from './raw-transfer-logs';

/** An EVM header as EvmBlockSource.block returns it: with the block's logs bloom. */
export interface EvmBlockHeader extends BlockHeader {
  /** 256-byte bloom of every log address and topic of the block (0x + 512 hex); null if the node sent none. */
  readonly logsBloom: string | null;
}

function bloomOf(header: BlockHeader): string | null {
  const bloom = (header as Partial<EvmBlockHeader>).logsBloom;
  return typeof bloom === 'string' && isBloom(bloom) ? bloom : null;
}

/**
 * Whether the block may hold a Transfer log of `token`. A bloom has no false negatives: false here
 * proves the block holds none. Without a valid bloom the block is asked.
 */
export function mayHoldTransfers(header: BlockHeader, token: string): boolean {
  const bloom = bloomOf(header);
  if (bloom === null) return true;
  return isContractAddressInBloom(bloom, token) && isTopicInBloom(bloom, TRANSFER_TOPIC);
}

export interface CoverageInput {
  readonly from: number;
  readonly to: number;
  /** The Transfer logs of the token the range query returned (all recipients, before matching). */
  readonly logs: readonly RpcLog[];
  /** Headers the follower holds for this range. */
  readonly headers: ReadonlyMap<number, BlockHeader>;
  readonly token: string;
  /** The headers of heights the follower did not fetch (a final range holds only its ends). */
  fetchHeaders(heights: number[]): Promise<ReadonlyMap<number, BlockHeader>>;
  /** eth_getLogs by blockHash (EIP-234): a backend that lacks the block fails instead of answering less. */
  logsOfBlock(header: BlockHeader): Promise<RpcLog[]>;
}

/**
 * A range query's logs, proven to cover the whole range, plus those it missed.
 *
 * Behind one URL the headers and the logs may come from different backends; a lagging geth clamps
 * `toBlock` to its own head and answers without error, so the answer may be a prefix of the range.
 * It is never a range with a hole: a backend answers every block up to where it stops. So a log at
 * height L proves every block up to L answered. Each block above L is proven empty by its header's
 * logs bloom (no false negatives), or, when the bloom says "maybe", asked again by its hash, which a
 * backend without that block refuses (retried) instead of answering empty.
 * Cost: nothing more when the range's last block holds a Transfer of the token (mainnet USDT: most
 * blocks); else the headers of the blocks after the last log that the follower did not fetch, and
 * one by-hash eth_getLogs per such block whose bloom may hold a token Transfer.
 */
export async function completeRangeLogs(input: CoverageInput): Promise<RpcLog[]> {
  const { from, to, logs, headers } = input;
  let covered = from - 1;
  for (const log of logs) {
    const height = log.blockNumber === null ? Number.NaN : Number(log.blockNumber);
    if (!(height >= from && height <= to)) throw new InconsistentChainError(`log at ${log.blockNumber} outside ${from}-${to}`, { txHash: log.transactionHash });
    const header = headers.get(height);
    if (header !== undefined && header.hash !== log.blockHash) throw new InconsistentChainError(`logs of block ${height} are of another branch`, { height });
    covered = Math.max(covered, height);
  }
  if (covered === to) return [...logs];
  const tail = Array.from({ length: to - covered }, (_, i) => covered + 1 + i);
  const missing = tail.filter((h) => !headers.has(h));
  const fetched = missing.length > 0 ? await input.fetchHeaders(missing) : new Map<number, BlockHeader>();
  const suspects = tail.map((h) => (headers.get(h) ?? fetched.get(h))!).filter((header) => mayHoldTransfers(header, input.token));
  const extra: RpcLog[] = [];
  for (const header of suspects) {
    for (const log of await input.logsOfBlock(header)) {
      if (log.blockHash !== header.hash || Number(log.blockNumber) !== header.height)
        throw new InconsistentChainError(`logs of block ${header.height} are of another branch`, { height: header.height });
      extra.push(log);
    }
  }
  return [...logs, ...extra];
}
