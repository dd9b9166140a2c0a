import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import type { Query } from '../../src/store/raw-sql';
import { allocateAddress, freeAddressCount, poolStateCounts, reserveAddresses } from '../../src/store/repos/address-pool';
import { ormConfig } from '../../src/store/orm';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { createMerchant, eventually, type MerchantCredentials, type Stack, startStack, waitForStatus } from '../support/stack';
import { advance, createInvoice, getInvoice, mine, pay, type Json } from '../invoices/helpers';
import { query } from '../operator/support';

const BEFORE = 'Migration20261129000000OutboxTxOrder';
/** Short windows so the test can walk an invoice past its end with the devnet clock. */
const ENV = { LATE_PAYMENT_WINDOW_MINUTES: '1' };

/**
 * Migration 20261129120000-shared-index-space on a database of today's shape where ONE address is
 * open for two invoices on two EVM networks (what the old independent pools did): X of merchant A
 * on BEP20 and Y of merchant B on POLYGON share address `ax`; ARBITRUM has it free. After the
 * upgrade both invoices keep working (each is paid on its own network), the address is never
 * allocated again while either holds it, and it returns to the pool once neither does.
 */
describe('shared index space migration: an address open on two networks', () => {
  let db: TestDatabase;
  let dataDir: string;
  let stack: Stack | undefined;
  let a: MerchantCredentials;
  let b: MerchantCredentials;
  let x: Json;
  let y: Json;
  beforeAll(async () => {
    db = await createTestDatabase('cp_idxspace');
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-idxspace-'));
  });
  afterAll(async () => {
    await stack?.stop();
    await db?.drop();
  });

  /** chainpay_address_pool_addresses{network, state} as the metrics read it. */
  const stateCount = async (network: string, state: string): Promise<number> =>
    (await poolStateCounts(stack!.daemon.orm.em.fork(), stack!.daemon.clock.now())).find((r) => r.network === network && r.state === state)?.n ?? 0;

  /**
   * What `network`'s pool would hand out now: every address a reservation takes and the next one an
   * allocation takes, in a transaction rolled back (the daemon's pool is left as it was).
   */
  async function takeableNow(network: string): Promise<string[]> {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    const q: Query = async (text, values) => (await client.query(text, values as unknown[])).rows;
    const orm = await MikroORM.init(ormConfig({ clientUrl: db.url }));
    try {
      await client.query('begin');
      const now = new Date(Date.now() + 24 * 3600_000);
      const reserved = await reserveAddresses(q, network, 100_000, now);
      await client.query('rollback');
      const free = await freeAddressCount(orm.em.fork(), network, now);
      // One allocation through the network-change path, rolled back as well.
      let allocated: string | undefined;
      await orm.em
        .fork()
        .transactional(async (em) => {
          allocated = (await allocateAddress(em, network, '00000000-0000-4000-8000-000000000000', now))?.normalized;
          throw new Error('rollback');
        })
        .catch(() => undefined);
      const all = reserved.map((r) => r.normalized);
      expect(free).toBe(all.length);
      return allocated ? [...all, allocated] : all;
    } finally {
      await client.end();
      await orm.close();
    }
  }

  it('is built: two open invoices on one address (BEP20 and POLYGON), the old schema', async () => {
    const first = await startStack({ database: db, dataDir, env: ENV });
    a = await createMerchant(first, { name: 'A' });
    b = await createMerchant(first, { name: 'B' });
    x = await createInvoice(first, a, { amount: '10', network: 'BEP20', lifetime_minutes: 10 });
    y = await createInvoice(first, b, { amount: '10', network: 'POLYGON', lifetime_minutes: 120 });
    await first.stop();

    // Back to the schema before the migration, then make Y hold X's address, as the old pools did.
    const orm = await MikroORM.init(ormConfig({ clientUrl: db.url }));
    try {
      await orm.getMigrator().down({ to: BEFORE });
      const em = orm.em.fork();
      const [xRow] = await em.execute<{ derivation_index: number; address: string; normalized: string }[]>(
        `select derivation_index, address, normalized from deposit_addresses where network = 'BEP20' and invoice_uuid = ?`,
        [x.uuid],
      );
      const [yRow] = await em.execute<{ address: string; normalized: string }[]>(`select address, normalized from deposit_addresses where network = 'POLYGON' and invoice_uuid = ?`, [y.uuid]);
      await em.execute(`update deposit_addresses set state = 'free', invoice_uuid = null, allocated_at = null where network = 'POLYGON' and invoice_uuid = ?`, [y.uuid]);
      await em.execute(`delete from deposit_addresses where network in ('POLYGON', 'ARBITRUM') and derivation_index = ?`, [xRow!.derivation_index]);
      await em.execute(
        `insert into deposit_addresses (network, derivation_index, address, normalized, state, invoice_uuid, allocated_at, created_at)
         values ('POLYGON', ?, ?, ?, 'allocated', ?, now(), now()), ('ARBITRUM', ?, ?, ?, 'free', null, null, now())`,
        [xRow!.derivation_index, xRow!.address, xRow!.normalized, y.uuid, xRow!.derivation_index, xRow!.address, xRow!.normalized],
      );
      // The invoice and its actor's target move to the shared address (the snapshot keeps the normalized form).
      await em.execute(`update invoices set address = ?, payment_uri = replace(payment_uri, ?, ?), actor_snapshot = replace(replace(actor_snapshot::text, ?, ?), ?, ?)::jsonb where uuid = ?`, [
        xRow!.address,
        yRow!.address,
        xRow!.address,
        yRow!.normalized,
        xRow!.normalized,
        yRow!.address,
        xRow!.address,
        y.uuid,
      ]);
      const open = await em.execute(`select network, uuid from invoices where open and lower(address) = ? order by network`, [xRow!.normalized]);
      expect(open).toEqual([
        { network: 'BEP20', uuid: x.uuid },
        { network: 'POLYGON', uuid: y.uuid },
      ]);
      y = { ...y, address: xRow!.address };
    } finally {
      await orm.close();
    }
  });

  it('after the upgrade: both invoices keep their address and are paid on their own network; the address is never handed out while either holds it', async () => {
    stack = await startStack({ database: db, dataDir, env: ENV });
    const shared = (x.address as string).toLowerCase();
    const rows = await query<{ network: string; state: string; legacy: boolean; invoice_uuid: string | null }>(
      stack,
      `select network, state, legacy, invoice_uuid from deposit_addresses where normalized = ? order by network`,
      [shared],
    );
    expect(rows).toEqual([
      { network: 'ARBITRUM', state: 'retired', legacy: true, invoice_uuid: null },
      { network: 'BEP20', state: 'allocated', legacy: false, invoice_uuid: x.uuid },
      { network: 'POLYGON', state: 'allocated', legacy: true, invoice_uuid: y.uuid },
    ]);
    // Every EVM watcher watches it (and everything else of the family).
    const neverShared = async (): Promise<void> => {
      const made = await Promise.all(['BEP20', 'POLYGON', 'ARBITRUM', 'BEP20', 'POLYGON', 'ARBITRUM'].map((network) => createInvoice(stack!, a, { amount: '1', network })));
      for (const inv of made) expect((inv.address as string).toLowerCase()).not.toBe(shared);
    };
    await neverShared();

    // X is paid on BEP20 (its own network), Y is not touched by it.
    await pay(stack, 'BEP20', x.address, x.pay_amount);
    await mine(stack, 'BEP20', x.required_confirmations);
    await waitForStatus(stack, a, x.uuid, 'paid');
    expect((await getInvoice(stack, b, y.uuid)).status).toBe('pending');

    // X expires' time and its late window pass: its row is free, but Y still holds the address on POLYGON.
    await advance(stack, 15 * 60);
    await eventually(async () => ((await query<{ open: boolean }>(stack!, 'select open from invoices where uuid = ?', [x.uuid]))[0]?.open === false ? true : undefined), 10_000, 'X closed');
    const [owner] = await query<{ state: string }>(stack, `select state from deposit_addresses where network = 'BEP20' and normalized = ?`, [shared]);
    expect(owner!.state).toBe('free');
    // The engine's reserve may hold other addresses for a while: ask the pool itself, in a
    // transaction rolled back, for every address it would hand out now (reservation and allocation).
    expect(await takeableNow('BEP20')).not.toContain(shared);
    // The pool metrics count it apart: free here, blocked by the POLYGON row still holding it.
    expect(await stateCount('BEP20', 'blocked')).toBe(1);
    expect(await stateCount('ARBITRUM', 'retired')).toBe(1);
    await neverShared();
    for (let i = 0; i < 3; i++) await neverShared();

    // Y is paid on POLYGON, at the shared address: its legacy row still attributes it.
    await pay(stack, 'POLYGON', y.address, y.pay_amount);
    await mine(stack, 'POLYGON', y.required_confirmations);
    await waitForStatus(stack, b, y.uuid, 'paid');
    expect((await getInvoice(stack, a, x.uuid)).payments).toHaveLength(1);

    // Y's late window ends: its legacy row retires, and only now the address goes back to BEP20's pool.
    await advance(stack, 2 * 60);
    await eventually(async () => ((await query<{ open: boolean }>(stack!, 'select open from invoices where uuid = ?', [y.uuid]))[0]?.open === false ? true : undefined), 10_000, 'Y closed');
    expect(await query(stack, `select network, state from deposit_addresses where normalized = ? and state not in ('retired', 'free')`, [shared])).toEqual([]);
    expect(await takeableNow('BEP20')).toContain(shared);
    expect(await stateCount('BEP20', 'blocked')).toBe(0);
    expect(await stateCount('POLYGON', 'retired')).toBe(1);
    expect(await takeableNow('POLYGON')).not.toContain(shared);
    expect(await takeableNow('ARBITRUM')).not.toContain(shared);
    const again = await eventually(
      async () => {
        const inv = await createInvoice(stack!, a, { amount: '1', network: 'BEP20' });
        return (inv.address as string).toLowerCase() === shared ? inv : undefined;
      },
      10_000,
      'the address handed out again on its own network',
    );
    expect(again.network).toBe('BEP20');
  });
});
