import type { NetworkCode } from '../../domain/networks';
import { DevnetHeadMovedError, type BlockHeader, type ChainExtension, type DevnetChainStore, type InitialChain, type StoredChain, type TokenFlow, type TokenFlowQuery } from './store';
import type { DevnetBlock, DevnetTransfer, PendingTransfer } from './types';

/** One statement with `$1..$n` placeholders; a `name` makes it a prepared statement (same text always). */
export type Query = <T = Record<string, unknown>>(text: string, values?: readonly unknown[], name?: string) => Promise<T[]>;

/** The database access the devnet store needs (src/store/raw-sql.ts RawSql has this shape). */
export interface SqlRunner {
  readonly query: Query;
  /** BEGIN, fn, COMMIT on one connection; ROLLBACK when fn or the commit throws. */
  transaction<T>(fn: (q: Query) => Promise<T>): Promise<T>;
}

/** Rows per INSERT statement when a whole chain is written (an imported journal may be long). */
const CHUNK = 5_000;

// Tables of migration 20261127000000-devnet-chains. Heights are bigint (text from pg), timestamps
// are written and read as epoch milliseconds, amounts are numeric read back in canonical form.
const SELECT_HEAD = `select head_height, head_hash from devnet_chains where network = $1`;
const SELECT_BLOCKS = `select hash, height, parent_hash, round(extract(epoch from mined_at) * 1000)::int8 as ms
  from devnet_blocks where network = $1 and canonical and height >= $2 order by height limit $3`;
const SELECT_TRANSFERS = `select t.block_hash, t.event_index, t.tx_hash, t.from_address, t.to_address, t.to_key, trim_scale(t.amount)::text as amount, t.memo, t.contract
  from devnet_blocks b join devnet_transfers t on t.network = b.network and t.block_hash = b.hash
  where b.network = $1 and b.canonical and b.height >= $2 and b.height <= $3 order by b.height, t.event_index`;
const SELECT_MEMPOOL = `select tx_hash, from_address, to_address, to_key, trim_scale(amount)::text as amount, memo, contract, valid_until_ms
  from devnet_mempool where network = $1 order by position`;
const MOVE_HEAD = `update devnet_chains set head_height = $4, head_hash = $5, updated_at = now()
  where network = $1 and head_height = $2 and head_hash = $3 returning network`;
const ORPHAN_ABOVE = `update devnet_blocks set canonical = false where network = $1 and canonical and height > $2`;
const INSERT_BLOCKS = `insert into devnet_blocks (network, hash, height, parent_hash, mined_at, canonical)
  select $1, x.hash, x.height, x.parent, timestamptz 'epoch' + x.ms * interval '1 millisecond', x.canonical
  from unnest($2::text[], $3::int8[], $4::text[], $5::int8[], $6::bool[]) as x(hash, height, parent, ms, canonical)`;
const INSERT_TRANSFERS = `insert into devnet_transfers (network, block_hash, event_index, tx_hash, from_address, to_address, to_key, amount, memo, contract)
  select $1, x.* from unnest($2::text[], $3::int4[], $4::text[], $5::text[], $6::text[], $7::text[], $8::numeric[], $9::text[], $10::text[])
  as x(block_hash, event_index, tx_hash, from_address, to_address, to_key, amount, memo, contract)`;
/**
 * New blocks on the head, in one statement (one round trip, atomic on its own): the compare-and-swap
 * of the head gates every insert and the mempool delete (they read `moved`, empty when it failed).
 */
const EXTEND = `with moved as (
    update devnet_chains set head_height = $4, head_hash = $5, updated_at = now()
    where network = $1 and head_height = $2 and head_hash = $3 returning network
  ), blocks as (
    insert into devnet_blocks (network, hash, height, parent_hash, mined_at, canonical)
    select moved.network, x.hash, x.height, x.parent, timestamptz 'epoch' + x.ms * interval '1 millisecond', true
    from moved, unnest($6::text[], $7::int8[], $8::text[], $9::int8[]) as x(hash, height, parent, ms)
  ), transfers as (
    insert into devnet_transfers (network, block_hash, event_index, tx_hash, from_address, to_address, to_key, amount, memo, contract)
    select moved.network, x.* from moved, unnest($10::text[], $11::int4[], $12::text[], $13::text[], $14::text[], $15::text[], $16::numeric[], $17::text[], $18::text[])
    as x(block_hash, event_index, tx_hash, from_address, to_address, to_key, amount, memo, contract)
  ), mined as (
    delete from devnet_mempool p using moved where p.network = moved.network and p.tx_hash = any($19::text[])
  )
  select network from moved`;
const INSERT_PENDING = `insert into devnet_mempool (network, tx_hash, position, from_address, to_address, to_key, amount, memo, contract, valid_until_ms)
  select $1::text, $2::text, coalesce(max(position), 0) + 1, $3::text, $4::text, $5::text, $6::numeric, $7::text, $8::text, $9::int8 from devnet_mempool where network = $1::text
  on conflict (network, tx_hash) do nothing`;
const INSERT_CHAIN = `insert into devnet_chains (network, head_height, head_hash, updated_at) values ($1, $2, $3, now())
  on conflict (network) do nothing returning network`;
const SELECT_BY_HASH = `select hash, height, parent_hash, round(extract(epoch from mined_at) * 1000)::int8 as ms, canonical
  from devnet_blocks where network = $1 and hash = $2`;
const SELECT_FLOW = `select trim_scale(coalesce(sum(t.amount) filter (where t.to_key = $2), 0))::text as received,
  trim_scale(coalesce(sum(t.amount) filter (where t.from_address = $3), 0))::text as sent
  from devnet_transfers t join devnet_blocks b on b.network = t.network and b.hash = t.block_hash
  where t.network = $1 and b.canonical and t.contract = $4 and (t.to_key = $2 or t.from_address = $3)`;
const SELECT_MINED = `select b.height from devnet_transfers t join devnet_blocks b on b.network = t.network and b.hash = t.block_hash
  where t.network = $1 and t.tx_hash = $2 and b.canonical limit 1`;

interface BlockRow {
  hash: string;
  height: string;
  parent_hash: string;
  ms: string;
}

interface TransferRow {
  block_hash: string;
  event_index: number;
  tx_hash: string;
  from_address: string;
  to_address: string;
  to_key: string;
  amount: string;
  memo: string | null;
  contract: string;
  /** Mempool rows only (migration 20261128020000-payout-book). */
  valid_until_ms?: string | null;
}

/** The devnet chains in PostgreSQL (tables devnet_chains, devnet_blocks, devnet_transfers, devnet_mempool). */
export class PgDevnetStore implements DevnetChainStore {
  constructor(private readonly sql: SqlRunner) {}

  async load(network: NetworkCode, window: number): Promise<StoredChain | null> {
    return this.sql.transaction(async (q) => {
      // One snapshot for the head, its blocks and the mempool.
      await q('set transaction isolation level repeatable read');
      const [head] = await q<{ head_height: string; head_hash: string }>(SELECT_HEAD, [network], 'devnet_select_head');
      if (!head) return null;
      const headHeight = Number(head.head_height);
      const from = Math.max(0, headHeight - window + 1);
      const blocks = await readBlocks(q, network, from, headHeight - from + 1);
      const mempool = (await q<TransferRow>(SELECT_MEMPOOL, [network], 'devnet_select_mempool')).map(pendingOf);
      return { head: { height: headHeight, hash: head.head_hash }, blocks, mempool };
    });
  }

  async create(network: NetworkCode, initial: InitialChain): Promise<boolean> {
    return this.sql.transaction(async (q) => {
      const created = await q(INSERT_CHAIN, [network, initial.head.height, initial.head.hash], 'devnet_insert_chain');
      if (created.length === 0) return false;
      for (let i = 0; i < initial.blocks.length; i += CHUNK) {
        const chunk = initial.blocks.slice(i, i + CHUNK);
        await insertBlocks(
          q,
          network,
          chunk.map((b) => b.block),
          chunk.map((b) => b.canonical),
        );
      }
      for (const transfer of initial.mempool) await q(INSERT_PENDING, pendingValues(network, transfer), 'devnet_insert_pending');
      return true;
    });
  }

  async extend(network: NetworkCode, change: ChainExtension): Promise<void> {
    const last = change.blocks[change.blocks.length - 1];
    if (!last) return;
    const head = [change.expectedHead.height, change.expectedHead.hash, last.height, last.hash];
    if (change.keepHeight === undefined) {
      const t = transferColumns(change.blocks);
      const mined = [...change.blocks.flatMap((b) => b.transfers.map((x) => x.txHash)), ...(change.expired ?? [])];
      const moved = await this.sql.query(EXTEND, [network, ...head, ...blockColumns(change.blocks), ...t, mined], 'devnet_extend');
      if (moved.length === 0) throw new DevnetHeadMovedError(network, change.expectedHead);
      return;
    }
    // A reorg: the old blocks leave the canonical heights before the new ones take them.
    const keepHeight = change.keepHeight;
    await this.sql.transaction(async (q) => {
      // Compare-and-swap on the head row: it also locks the chain against a concurrent writer.
      const moved = await q(MOVE_HEAD, [network, ...head], 'devnet_move_head');
      if (moved.length === 0) throw new DevnetHeadMovedError(network, change.expectedHead);
      await q(ORPHAN_ABOVE, [network, keepHeight], 'devnet_orphan_above');
      await insertBlocks(
        q,
        network,
        change.blocks,
        change.blocks.map(() => true),
      );
    });
  }

  async addPending(network: NetworkCode, transfer: PendingTransfer): Promise<void> {
    await this.sql.query(INSERT_PENDING, pendingValues(network, transfer), 'devnet_insert_pending');
  }

  async canonicalBlocks(network: NetworkCode, from: number, limit: number): Promise<DevnetBlock[]> {
    return this.sql.transaction(async (q) => {
      await q('set transaction isolation level repeatable read');
      return readBlocks(q, network, from, limit);
    });
  }

  async blockByHash(network: NetworkCode, hash: string): Promise<{ block: BlockHeader; canonical: boolean } | null> {
    const [row] = await this.sql.query<BlockRow & { canonical: boolean }>(SELECT_BY_HASH, [network, hash], 'devnet_select_by_hash');
    return row ? { block: headerOf(row), canonical: row.canonical } : null;
  }

  async tokenFlow(network: NetworkCode, flow: TokenFlowQuery): Promise<TokenFlow> {
    const [row] = await this.sql.query<{ received: string; sent: string }>(SELECT_FLOW, [network, flow.toKey, flow.from, flow.contract], 'devnet_select_token_flow');
    return { received: row?.received ?? '0', sent: row?.sent ?? '0' };
  }

  async minedHeight(network: NetworkCode, txHash: string): Promise<number | null> {
    const [row] = await this.sql.query<{ height: string }>(SELECT_MINED, [network, txHash], 'devnet_select_mined');
    return row ? Number(row.height) : null;
  }
}

async function readBlocks(q: Query, network: NetworkCode, from: number, limit: number): Promise<DevnetBlock[]> {
  if (limit <= 0) return [];
  const rows = await q<BlockRow>(SELECT_BLOCKS, [network, from, limit], 'devnet_select_blocks');
  if (rows.length === 0) return [];
  const transfers = new Map<string, DevnetTransfer[]>();
  const to = Number(rows[rows.length - 1]!.height);
  for (const row of await q<TransferRow>(SELECT_TRANSFERS, [network, from, to], 'devnet_select_transfers')) {
    const list = transfers.get(row.block_hash) ?? [];
    list.push({ ...pendingOf(row), eventIndex: row.event_index });
    transfers.set(row.block_hash, list);
  }
  return rows.map((row) => ({ ...headerOf(row), transfers: transfers.get(row.hash) ?? [] }));
}

async function insertBlocks(q: Query, network: NetworkCode, blocks: readonly DevnetBlock[], canonical: readonly boolean[]): Promise<void> {
  await q(INSERT_BLOCKS, [network, ...blockColumns(blocks), canonical], 'devnet_insert_blocks');
  if (blocks.some((b) => b.transfers.length > 0)) await q(INSERT_TRANSFERS, [network, ...transferColumns(blocks)], 'devnet_insert_transfers');
}

/** hash[], height[], parent[], ms[] */
function blockColumns(blocks: readonly DevnetBlock[]): unknown[][] {
  return [blocks.map((b) => b.hash), blocks.map((b) => b.height), blocks.map((b) => b.parentHash), blocks.map((b) => b.timestamp)];
}

/** block_hash[], event_index[], tx_hash[], from[], to[], to_key[], amount[], memo[], contract[] */
function transferColumns(blocks: readonly DevnetBlock[]): unknown[][] {
  const rows = blocks.flatMap((b) => b.transfers.map((t) => ({ block: b.hash, t })));
  const column = <T>(pick: (t: DevnetTransfer) => T): T[] => rows.map(({ t }) => pick(t));
  return [
    rows.map((r) => r.block),
    column((t) => t.eventIndex),
    column((t) => t.txHash),
    column((t) => t.from),
    column((t) => t.to),
    column((t) => t.toKey),
    column((t) => t.amount),
    column((t) => t.memo),
    column((t) => t.contract),
  ];
}

function headerOf(row: BlockRow): BlockHeader {
  return { height: Number(row.height), hash: row.hash, parentHash: row.parent_hash, timestamp: Number(row.ms) };
}

function pendingOf(row: Omit<TransferRow, 'block_hash' | 'event_index'>): PendingTransfer {
  const transfer = { txHash: row.tx_hash, from: row.from_address, to: row.to_address, toKey: row.to_key, amount: row.amount, memo: row.memo, contract: row.contract };
  return row.valid_until_ms === undefined || row.valid_until_ms === null ? transfer : { ...transfer, validUntilMs: Number(row.valid_until_ms) };
}

function pendingValues(network: NetworkCode, t: PendingTransfer): unknown[] {
  return [network, t.txHash, t.from, t.to, t.toKey, t.amount, t.memo, t.contract, t.validUntilMs ?? null];
}
