import { BlockNotFoundError, toHex, type PublicClient, type RpcLog } from 'viem';
import type { UnstampedTransfer } from '../types';
import { fetchHeaders } from '../sync/headers';
import type { BlockHeader, BlockSource } from '../sync/types';
import { completeRangeLogs, type EvmBlockHeader } from './log-coverage';
import { classifyRpcError, rpc } from './rpc-errors';
import { TRANSFER_TOPIC, transfersFromRawLogs } from './raw-transfer-logs';
import type { LogFilter } from './transfer-logs';

/** Parallel header reads when a range's answer must be proven by blooms (as the follower's default). */
const HEADER_CONCURRENCY = 8;
/** By-hash answers kept (a block's logs never change under its hash): a retried step asks only what failed. */
const BLOCK_LOGS_KEPT = 256;

/**
 * The EVM side of the block follower. Per block range one eth_getLogs, filtered by the token
 * address and the Transfer topic only; recipients are matched in memory, so the cost per range
 * does not depend on how many addresses are watched. The answer is proven to cover the whole range
 * (log-coverage.ts): a lagging backend that clamped the range cannot make the follower skip blocks.
 */
export class EvmBlockSource implements BlockSource {
  private readonly blockLogs = new Map<string, RpcLog[]>();

  constructor(
    private readonly client: PublicClient,
    private readonly filter: LogFilter,
  ) {}

  head(): Promise<number> {
    // cacheTime 0: viem would otherwise reuse the last block number for a polling interval.
    return rpc('eth_blockNumber', async () => Number(await this.client.getBlockNumber({ cacheTime: 0 })));
  }

  async block(height: number): Promise<EvmBlockHeader | null> {
    try {
      const b = await this.client.getBlock({ blockNumber: BigInt(height) });
      if (b.hash === null || b.number === null) return null;
      return { height: Number(b.number), hash: b.hash, parentHash: b.parentHash, timestamp: new Date(Number(b.timestamp) * 1000), logsBloom: b.logsBloom ?? null };
    } catch (error) {
      if (error instanceof BlockNotFoundError) return null;
      throw classifyRpcError(error, 'eth_getBlockByNumber');
    }
  }

  async transfers(fromHeight: number, toHeight: number, headers: ReadonlyMap<number, BlockHeader>): Promise<UnstampedTransfer[]> {
    const ranged = await rpc('eth_getLogs', () => this.getLogs({ fromBlock: toHex(fromHeight), toBlock: toHex(toHeight) }), toHeight - fromHeight + 1);
    const logs = await completeRangeLogs({
      from: fromHeight,
      to: toHeight,
      logs: ranged,
      headers,
      token: this.filter.token,
      fetchHeaders: (heights) => fetchHeaders(this, heights, HEADER_CONCURRENCY),
      logsOfBlock: (header) => this.logsOfBlock(header.hash),
    });
    return transfersFromRawLogs(logs, this.filter);
  }

  /**
   * eth_getLogs by blockHash. One block: a refusal is not a range to narrow, and a backend without
   * the block fails (retried). Answers are kept by hash, so a step retried after one such failure
   * does not ask again for the blocks already answered (with a backend that lags half the time, a
   * step needing several blocks would otherwise rarely get them all in one go).
   */
  private async logsOfBlock(hash: string): Promise<RpcLog[]> {
    const kept = this.blockLogs.get(hash);
    if (kept !== undefined) return kept;
    const logs = await rpc('eth_getLogs', () => this.getLogs({ blockHash: hash as `0x${string}` }));
    if (this.blockLogs.size >= BLOCK_LOGS_KEPT) this.blockLogs.delete(this.blockLogs.keys().next().value!);
    this.blockLogs.set(hash, logs);
    return logs;
  }

  private getLogs(scope: { fromBlock: `0x${string}`; toBlock: `0x${string}` } | { blockHash: `0x${string}` }): Promise<RpcLog[]> {
    return this.client.request({ method: 'eth_getLogs', params: [{ address: this.filter.token as `0x${string}`, topics: [TRANSFER_TOPIC], ...scope }] });
  }
}
