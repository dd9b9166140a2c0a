import type { Connection } from '@solana/web3.js';
import { ChainSyncError } from '../sync/errors';
import { BlockNotAvailableError, RPC_BLOCK_NOT_AVAILABLE, RPC_LONG_TERM_STORAGE_SLOT_SKIPPED, RPC_SLOT_SKIPPED, SlotMissingFromStorageError, SolanaRpcError } from './errors';
import type { BlockFetcher } from './block-fetch';
import type { SlotBlock } from './block-reader';
import { rpcErrorCode, type SolanaRpc } from './rpc';

/** A finalized block as the watch reads it, or the node's word that the slot holds none. */
export type SlotRead = { readonly kind: 'block'; readonly block: SlotBlock } | { readonly kind: 'skipped' };

/**
 * Finalized slots and blocks over JSON-RPC. Per slot exactly one getBlock (transactionDetails
 * `accounts`: signatures, account keys, meta with token balances; no rewards), plus one getBlocks
 * per range of slots and one getSlot per poll: nothing here depends on the watched addresses.
 * getBlock goes through `blocks` (the daemon's: a BlockThread), a plain JSON-RPC call read by
 * readSlotBlock for the mint, not web3.js's getBlock, whose validation of every field of a mainnet
 * block cost ~0.5 s of CPU. Failures are thrown as the sync error classes (by JSON-RPC code, never
 * by message).
 */
export class SlotSource {
  constructor(
    private readonly rpc: SolanaRpc,
    private readonly blocks: BlockFetcher,
  ) {}

  /** The highest finalized slot. */
  finalizedSlot(): Promise<number> {
    return this.wrap('getSlot', (c) => c.getSlot('finalized'));
  }

  /** Produced (non-skipped) finalized slots in [from, to]. */
  producedSlots(from: number, to: number): Promise<number[]> {
    return this.wrap('getBlocks', (c) => c.getBlocks(from, to, 'finalized'));
  }

  /**
   * getBlock at `finalized`. -32004 (not available yet) and -32009 (missing in long-term storage)
   * are thrown as their own retryable classes; -32007 (skipped) answers `skipped`.
   */
  async block(slot: number): Promise<SlotRead> {
    try {
      const block = await this.rpc.call('getBlock', () => this.blocks.fetch(slot));
      if (block === null) throw new BlockNotAvailableError(`getBlock ${slot}: no block yet`, { slot });
      return { kind: 'block', block };
    } catch (error) {
      if (error instanceof ChainSyncError) throw error;
      const code = rpcErrorCode(error);
      if (code === RPC_SLOT_SKIPPED) return { kind: 'skipped' };
      if (code === RPC_BLOCK_NOT_AVAILABLE) throw new BlockNotAvailableError(`getBlock ${slot}: block not available yet`, { slot, code }, { cause: error });
      if (code === RPC_LONG_TERM_STORAGE_SLOT_SKIPPED) {
        throw new SlotMissingFromStorageError(
          `getBlock ${slot}: missing in the provider's long-term storage; it is not passed over (use an RPC with full block history)`,
          { slot, code },
          { cause: error },
        );
      }
      throw new SolanaRpcError(`getBlock ${slot} failed`, { slot, code }, { cause: error });
    }
  }

  /** Ends the block thread (the adapter's close). */
  close(): Promise<void> {
    return this.blocks.close();
  }

  private async wrap<T>(method: string, fn: (connection: Connection) => Promise<T>): Promise<T> {
    try {
      return await this.rpc.call(method, fn);
    } catch (error) {
      throw new SolanaRpcError(`${method} failed`, { method, code: rpcErrorCode(error) }, { cause: error });
    }
  }
}
