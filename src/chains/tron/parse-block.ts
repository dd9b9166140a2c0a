import type { BlockHeader } from '../sync/types';
import type { TronBlock } from './node-types';

export interface ParsedBlock {
  readonly header: BlockHeader;
  readonly txIDs: readonly string[];
}

/** A java-tron block answer -> the follower's header and the block's txIDs; null for `{}` (no such block). */
export function parseBlock(block: TronBlock): ParsedBlock | null {
  const raw = block.block_header?.raw_data;
  if (block.blockID === undefined || raw === undefined) return null;
  // The genesis block has no `number` (protobuf omits zero).
  const height = raw.number ?? 0;
  return {
    header: { height, hash: block.blockID, parentHash: raw.parentHash, timestamp: new Date(raw.timestamp) },
    txIDs: (block.transactions ?? []).map((t) => t.txID),
  };
}
