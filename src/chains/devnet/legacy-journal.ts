import fs from 'node:fs';
import path from 'node:path';
import type { NetworkCode } from '../../domain/networks';
import type { DevnetChainStore, InitialChain } from './store';
import type { DevnetBlock, PendingTransfer } from './types';

/**
 * Before the devnet chains moved into the database, each daemon journaled them to
 * `DATA_DIR/devnet/<NETWORK>.jsonl` (one JSON entry a line). A database upgraded from then has
 * watcher cursors and payments on that chain, so on first start its journal is imported once, in
 * one transaction, and the file renamed `<NETWORK>.jsonl.imported`. A journal found when the
 * database has a chain for the network already (e.g. the standby's own, never-shared file) is
 * left alone: the database's chain is the one the watchers followed.
 */
type LegacyEntry =
  | { readonly type: 'block'; readonly block: DevnetBlock }
  /** Drop the last `depth` blocks; the replacement blocks follow as `block` entries. */
  | { readonly type: 'reorg'; readonly depth: number }
  | { readonly type: 'mempool'; readonly transfer: PendingTransfer };

export class LegacyJournalError extends Error {
  override readonly name = 'LegacyJournalError';
  constructor(
    readonly file: string,
    readonly byteOffset: number,
    reason: string,
  ) {
    super(`devnet journal ${file} is corrupt at byte ${byteOffset} (${reason}); move it away to start that network's devnet chain afresh`);
  }
}

export async function importLegacyJournal(input: { store: DevnetChainStore; network: NetworkCode; dir: string }): Promise<{ file: string; blocks: number; head: number } | null> {
  const file = path.join(input.dir, `${input.network}.jsonl`);
  if (!fs.existsSync(file)) return null;
  if (await input.store.load(input.network, 1)) return null;
  const chain = replay(file, readEntries(file));
  if (!(await input.store.create(input.network, chain))) return null;
  fs.renameSync(file, `${file}.imported`);
  return { file, blocks: chain.blocks.length, head: chain.head.height };
}

/** Entries as the old journal wrote them; a torn last line (killed mid-write, never acknowledged) is left out. */
function readEntries(file: string): LegacyEntry[] {
  const text = fs.readFileSync(file, 'utf8');
  const entries: LegacyEntry[] = [];
  let offset = 0;
  while (offset < text.length) {
    const end = text.indexOf('\n', offset);
    if (end === -1) break; // torn last line
    const line = text.slice(offset, end);
    try {
      if (line.trim() !== '') entries.push(JSON.parse(line) as LegacyEntry);
    } catch (error) {
      if (text.slice(end + 1).trim() !== '') throw new LegacyJournalError(file, Buffer.byteLength(text.slice(0, offset)), (error as Error).message);
    }
    offset = end + 1;
  }
  return entries;
}

/** The old replay rules: every block ever seen (orphans too), the canonical list, the mempool. */
function replay(file: string, entries: readonly LegacyEntry[]): InitialChain {
  const canonical: DevnetBlock[] = [];
  const all: DevnetBlock[] = [];
  const mempool = new Map<string, PendingTransfer>();
  entries.forEach((entry, i) => {
    if (entry.type === 'mempool') {
      mempool.set(entry.transfer.txHash, entry.transfer);
    } else if (entry.type === 'reorg') {
      canonical.splice(canonical.length - entry.depth);
    } else {
      const head = canonical[canonical.length - 1];
      if (entry.block.height !== canonical.length || (head && entry.block.parentHash !== head.hash))
        throw new LegacyJournalError(file, i, `entry ${i}: block ${entry.block.height} does not extend the head`);
      canonical.push(entry.block);
      all.push(entry.block);
      for (const t of entry.block.transfers) mempool.delete(t.txHash);
    }
  });
  const head = canonical[canonical.length - 1];
  if (!head) throw new LegacyJournalError(file, 0, 'no genesis block');
  const onChain = new Set(canonical.map((b) => b.hash));
  return { head: { height: head.height, hash: head.hash }, blocks: all.map((block) => ({ block, canonical: onChain.has(block.hash) })), mempool: [...mempool.values()] };
}
