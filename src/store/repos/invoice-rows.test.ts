import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { Invoice } from '../entities';
import { openDatabase } from '../orm';
import { RawSql } from '../raw-sql';
import { insertInvoicesOnReserved, loadInvoice, type ReservedInsert } from './invoice-rows';

/** insertInvoicesOnReserved: the group-commit statement of new invoices, against a real PostgreSQL. */
describe('insertInvoicesOnReserved', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  let sql: RawSql;
  const now = new Date('2026-11-24T10:00:00.000Z');
  const merchantId = randomUUID();
  let nextIndex = 0;

  beforeAll(async () => {
    db = await createTestDatabase('cp_invoice_rows');
    orm = await openDatabase({ clientUrl: db.url });
    sql = new RawSql(orm);
    await sql.query(
      `insert into merchants (id, name, api_key, api_secret_enc, webhook_secret_enc, platform_fee_percent, cap_per_withdrawal, cap_daily, underpayment_tolerance, created_at, updated_at)
       values ($1, 'shop', 'k-invoice-rows', 'x', 'y', 1, 1000, 5000, 0, now(), now())`,
      [merchantId],
    );
  });
  afterAll(async () => {
    await orm.close();
    await db.drop();
  });

  /** A reserved POLYGON address, as AddressReserve holds them. */
  async function reservedAddress(): Promise<{ network: string; derivationIndex: number; address: string }> {
    const derivationIndex = nextIndex++;
    const address = `0x${derivationIndex.toString(16).padStart(40, '0')}`;
    await sql.query(`insert into deposit_addresses (network, index_space, derivation_index, address, normalized, state, created_at) values ('POLYGON', 'evm', $1, $2, $2, 'reserved', $3)`, [
      derivationIndex,
      address,
      now,
    ]);
    return { network: 'POLYGON', derivationIndex, address };
  }

  async function newInsert(orderId: string | null): Promise<ReservedInsert> {
    const a = await reservedAddress();
    const row = new Invoice(randomUUID(), merchantId, 'pending', '10', '0.1', '0', '10.1', '10', 'buyer', '{"k":[1,"two"]}', new Date(now.getTime() + 3_600_000), now);
    Object.assign(row, {
      orderId,
      title: 'O\'Brien "quoted" {braces} \\ back,slash',
      network: 'POLYGON',
      address: a.address,
      memo: null,
      paymentUri: `ethereum:${a.address}`,
      requiredConfirmations: 3,
    });
    row.actorSnapshot = { status: 'active', value: 'pending', context: { note: 'a "quoted" \\ value, {x}', list: [1, 2] } };
    return { row, address: { network: a.network, derivationIndex: a.derivationIndex }, now };
  }

  const addressState = async (i: ReservedInsert): Promise<{ state: string; invoice_uuid: string | null }> =>
    (
      await sql.query<{ state: string; invoice_uuid: string | null }>('select state, invoice_uuid from deposit_addresses where network = $1 and derivation_index = $2', [
        i.address.network,
        i.address.derivationIndex,
      ])
    )[0]!;

  it('inserts every row on its reserved address, each column as the single-row insert writes it', async () => {
    const inserts = await Promise.all([newInsert('o-1'), newInsert(null), newInsert('o-3')]);
    const inserted = await insertInvoicesOnReserved(sql.query, inserts);
    expect([...inserted].sort()).toEqual(inserts.map((i) => i.row.uuid).sort());
    for (const i of inserts) {
      expect(await addressState(i)).toEqual({ state: 'allocated', invoice_uuid: i.row.uuid });
      const loaded = (await loadInvoice(sql.query, { uuid: i.row.uuid }))!;
      expect({ ...loaded.row, actorSnapshot: undefined }).toEqual({
        ...i.row,
        actorSnapshot: undefined,
        amount: expect.any(String),
        platformFee: expect.any(String),
        networkFee: expect.any(String),
        payAmount: expect.any(String),
        merchantNet: expect.any(String),
        receivedAmount: expect.any(String),
        bookedReceived: expect.any(String),
      });
      expect(Number(loaded.row.payAmount)).toBe(10.1);
      const [snap] = await sql.query<{ actor_snapshot: unknown }>('select actor_snapshot from invoices where uuid = $1', [i.row.uuid]);
      expect(snap!.actor_snapshot).toEqual(i.row.actorSnapshot);
    }
  });

  it('a row whose address is no longer reserved is left out, the others go in', async () => {
    const inserts = await Promise.all([newInsert(null), newInsert(null), newInsert(null)]);
    // Another engine took the middle one's address meanwhile.
    await sql.query(`update deposit_addresses set state = 'allocated', invoice_uuid = $3 where network = $1 and derivation_index = $2`, [
      inserts[1]!.address.network,
      inserts[1]!.address.derivationIndex,
      randomUUID(),
    ]);
    const inserted = await insertInvoicesOnReserved(sql.query, inserts);
    expect([...inserted].sort()).toEqual([inserts[0]!.row.uuid, inserts[2]!.row.uuid].sort());
    expect(await loadInvoice(sql.query, { uuid: inserts[1]!.row.uuid })).toBeNull();
  });

  it('an order_id clash (with a stored invoice or inside the batch) fails the whole statement and writes nothing', async () => {
    for (const clash of ['stored', 'within'] as const) {
      if (clash === 'stored') {
        const first = await newInsert('dup-stored');
        await insertInvoicesOnReserved(sql.query, [first]);
      }
      const inserts = await Promise.all([newInsert(null), newInsert(clash === 'stored' ? 'dup-stored' : 'dup-within'), newInsert(clash === 'stored' ? null : 'dup-within')]);
      await expect(insertInvoicesOnReserved(sql.query, inserts)).rejects.toMatchObject({ code: '23505', constraint: 'invoices_merchant_order_unique' });
      for (const i of inserts) {
        expect(await loadInvoice(sql.query, { uuid: i.row.uuid })).toBeNull();
        expect(await addressState(i)).toEqual({ state: 'reserved', invoice_uuid: null });
      }
    }
  });
});
