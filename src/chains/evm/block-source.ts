import { BlockNotFoundError, toHex, type PublicClient } from 'viem';
import type { UnstampedTransfer } from '../types';
import type { BlockHeader, BlockSource } from '../sync/types';
import { classifyRpcError, rpc } from './rpc-errors';
import { TRANSFER_TOPIC, transfersFromRawLogs } from './raw-transfer-logs';
import type { LogFilter } from './transfer-logs';

/**
 * The EVM side of the block follower. Per block range exactly one eth_getLogs, filtered by the
 * token address and the Transfer topic only; recipients are matched in memory, so the cost per
 * range does not depend on how many addresses are watched.
 */
export class EvmBlockSource implements BlockSource {
  constructor(
    private readonly client: PublicClient,
    private readonly filter: LogFilter,
  ) {}

  head(): Promise<number> {
    // cacheTime 0: viem would otherwise reuse the last block number for a polling interval.
    return rpc('eth_blockNumber', async () => Number(await this.client.getBlockNumber({ cacheTime: 0 })));
  }

  async block(height: number): Promise<BlockHeader | null> {
    try {
      const b = await this.client.getBlock({ blockNumber: BigInt(height) });
      if (b.hash === null || b.number === null) return null;
      return { height: Number(b.number), hash: b.hash, parentHash: b.parentHash, timestamp: new Date(Number(b.timestamp) * 1000) };
    } catch (error) {
      if (error instanceof BlockNotFoundError) return null;
      throw classifyRpcError(error, 'eth_getBlockByNumber');
    }
  }

  async transfers(fromHeight: number, toHeight: number): Promise<UnstampedTransfer[]> {
    const raw = await rpc(
      'eth_getLogs',
      () => this.client.request({ method: 'eth_getLogs', params: [{ address: this.filter.token as `0x${string}`, topics: [TRANSFER_TOPIC], fromBlock: toHex(fromHeight), toBlock: toHex(toHeight) }] }),
      toHeight - fromHeight + 1,
    );
    return transfersFromRawLogs(raw, this.filter);
  }
}
