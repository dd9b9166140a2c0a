import { randomUUID } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { ormConfig } from '../../src/store/orm';
import { MIGRATIONS } from '../../src/store/migrations';
import { OutboxEvent } from '../../src/store/entities';
import { RawSql } from '../../src/store/raw-sql';
import { insertOutboxEventsSql, OUTBOX_INSERT, outboxEventsParams, outboxEventsSource } from '../../src/webhooks/outbox';
import { readEventLog } from '../../src/webhooks/event-log';
import { EVENT_LOG_START, type EventLogCursor } from '../../src/domain/event-log-query';
import { newEventId } from '../../src/webhooks/event-id';
import { eventually } from '../support/stack';
import { createTestDatabase, type TestDatabase } from '../support/database';

const event = (merchantId: string, type: string): OutboxEvent => {
  const id = newEventId();
  return new OutboxEvent(id, merchantId, 'invoice', randomUUID(), type, JSON.stringify({ id, type }), new Date());
};

/**
 * The log's order rule at the level of transactions: a transaction that commits after a later one
 * would land behind a reader that had moved past the later one's events. Reading by (tx_id, seq)
 * below the snapshot's xmin never passes a transaction that has not finished.
 */
describe('event log order: (tx_id, seq) below the snapshot xmin', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  let sql: RawSql;
  const oldMerchant = randomUUID();
  const clients: Client[] = [];
  const connect = async (): Promise<Client> => {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    db = await createTestDatabase('cp_event_log');
    orm = await MikroORM.init(ormConfig({ clientUrl: db.url }));
    // Rows written before the migration: they get its xid and keep their seq order.
    const mine = MIGRATIONS.findIndex((m) => m.name === 'Migration20261129000000OutboxTxOrder');
    await orm.getMigrator().up({ to: MIGRATIONS[mine - 1]!.name });
    sql = new RawSql(orm);
    // The old insert (no tx_id column yet), one row per transaction.
    for (const t of ['old.1', 'old.2', 'old.3']) await sql.query(`${OUTBOX_INSERT} ${outboxEventsSource(1)}`, outboxEventsParams([event(oldMerchant, t)]));
    await orm.getMigrator().up();
  });
  afterAll(async () => {
    for (const c of clients) await c.end();
    await orm?.close();
    await db?.drop();
  });

  const readAll = async (merchantId: string, after: EventLogCursor = EVENT_LOG_START): Promise<{ types: string[]; next: EventLogCursor }> => {
    const page = await readEventLog(sql.query, merchantId, { after, limit: 100 });
    return { types: page.events.map((e) => JSON.parse(e.body).type), next: page.next };
  };

  it('the migration gives existing rows one xid and keeps them in seq order', async () => {
    const merchantId = oldMerchant;
    const rows = await sql.query<{ tx_id: string }>('select tx_id::text as tx_id from outbox_events where merchant_id = $1', [merchantId]);
    expect(new Set(rows.map((r) => r.tx_id)).size).toBe(1);
    expect((await eventually(async () => ((await readAll(merchantId)).types.length === 3 ? readAll(merchantId) : undefined))).types).toEqual(['old.1', 'old.2', 'old.3']);
  });

  it('both insert paths take the column default: the writing transaction id (a flush of several events, and the raw-SQL insert)', async () => {
    const merchantId = randomUUID();
    const flushed = await orm.em.fork().transactional(async (tx) => {
      tx.persist([event(merchantId, 'flush.1'), event(merchantId, 'flush.2')]);
      await tx.flush();
      return (await tx.execute<{ x: string }[]>('select pg_current_xact_id()::text as x'))[0]!.x;
    });
    const raw = await sql.transaction(async (q) => {
      await insertOutboxEventsSql(q, [event(merchantId, 'raw.1'), event(merchantId, 'raw.2')]);
      return (await q<{ x: string }>('select pg_current_xact_id()::text as x'))[0]!.x;
    });
    const rows = await sql.query<{ type: string; tx_id: string }>('select type, tx_id::text as tx_id from outbox_events where merchant_id = $1 order by seq', [merchantId]);
    expect(rows).toEqual([
      { type: 'flush.1', tx_id: flushed },
      { type: 'flush.2', tx_id: flushed },
      { type: 'raw.1', tx_id: raw },
      { type: 'raw.2', tx_id: raw },
    ]);
    expect(BigInt(raw)).toBeGreaterThan(BigInt(flushed));
  });

  /**
   * A begins and takes its xid (with its insert when `aInsertsFirst`, else with a bare
   * pg_current_xact_id()); B inserts and commits; A inserts (if not yet) and commits last.
   */
  async function lowerXidCommitsLast(aInsertsFirst: boolean): Promise<void> {
    const merchantId = randomUUID();
    const a = await connect();
    const b = await connect();
    const insertA = () => a.query(`${OUTBOX_INSERT} ${outboxEventsSource(1)}`, outboxEventsParams([event(merchantId, 'a')]));
    await a.query('begin');
    if (aInsertsFirst) await insertA();
    const xa = (await a.query<{ x: string }>('select pg_current_xact_id()::text as x')).rows[0]!.x;
    await b.query('begin');
    await b.query(`${OUTBOX_INSERT} ${outboxEventsSource(1)}`, outboxEventsParams([event(merchantId, 'b')]));
    await b.query('commit');
    if (!aInsertsFirst) await insertA();
    const rows = await a.query<{ type: string; tx_id: string; seq: string }>('select type, tx_id::text as tx_id, seq::text as seq from outbox_events where merchant_id = $1', [merchantId]);
    const ra = rows.rows.find((r) => r.type === 'a')!;
    const rb = rows.rows.find((r) => r.type === 'b')!;
    expect(ra.tx_id).toBe(xa);
    expect(BigInt(ra.tx_id)).toBeLessThan(BigInt(rb.tx_id));
    expect(BigInt(ra.seq) < BigInt(rb.seq)).toBe(aInsertsFirst);

    // B is committed and visible to every reader, A still runs. Handing out B now would move the
    // cursor past A's transaction before A's event is visible (with A's lower seq, a reader by seq
    // would skip A for good). The log hands out nothing yet.
    const visible = await sql.query<{ type: string }>('select type from outbox_events where merchant_id = $1', [merchantId]);
    expect(visible.map((r) => r.type)).toEqual(['b']);
    expect(await readAll(merchantId)).toEqual({ types: [], next: EVENT_LOG_START });

    await a.query('commit');
    // Both, A first (its transaction's id is lower), once no older transaction runs in the cluster.
    const after = await eventually(async () => {
      const got = await readAll(merchantId);
      return got.types.length === 2 ? got : undefined;
    });
    expect(after.types).toEqual(['a', 'b']);
    expect(after.next).toEqual({ txId: rb.tx_id, seq: rb.seq });
    // Nothing after the cursor, and nothing can land behind it any more.
    expect(await readAll(merchantId, after.next)).toEqual({ types: [], next: after.next });
  }

  it('the lower xid inserts first (lower seq) and commits last: the reader waits for it instead of passing it', async () => {
    await lowerXidCommitsLast(true);
  });

  it('the lower xid inserts after the other committed (higher seq): the log still orders by transaction, A then B', async () => {
    await lowerXidCommitsLast(false);
  });

  it('a rolled-back transaction below the horizon leaves no gap and no event', async () => {
    const merchantId = randomUUID();
    const c = await connect();
    await c.query('begin');
    await c.query(`${OUTBOX_INSERT} ${outboxEventsSource(1)}`, outboxEventsParams([event(merchantId, 'gone')]));
    await c.query('rollback');
    await insertOutboxEventsSql(sql.query, [event(merchantId, 'kept')]);
    expect((await eventually(async () => ((await readAll(merchantId)).types.length === 1 ? readAll(merchantId) : undefined))).types).toEqual(['kept']);
  });
});
