import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import type { CreateInvoiceResponse, Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import { CHAIN_MODE_KEY, DatabaseModeMismatchError, DatabaseModeUnknownError, verifyDatabaseModeAt } from '../../src/security/database-mode';
import { openDatabase } from '../../src/store/orm';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { spawnTs } from '../support/processes';
import { createMerchant, eventually, rpc, startStack } from '../support/stack';

jest.setTimeout(120_000);

const tmp = (name: string): string => fs.mkdtempSync(path.join(os.tmpdir(), `chainpay-mode-${name}-`));

async function query<R extends Record<string, unknown>>(url: string, sql: string, params: unknown[] = []): Promise<R[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** DESIGN.md, Embedded defaults: a daemon is devnet or live, never both; a database remembers its mode. */
describe('chain mode refusals at start (exit 78, EX_CONFIG)', () => {
  it('CHAIN_MODE=devnet with an RPC URL: refused through the real entry point, naming both, before anything is set up', async () => {
    const dataDir = tmp('mixed');
    const p = spawnTs('src/main.ts', { CHAIN_MODE: 'devnet', POLYGON_RPC_URL: 'http://127.0.0.1:9', DATA_DIR: dataDir, GRPC_PORT: '0' });
    expect(await p.exited()).toBe(78);
    expect(p.output()).toMatch(/invalid configuration: CHAIN_MODE: CHAIN_MODE=devnet with POLYGON_RPC_URL set: devnet and live never mix in one daemon/);
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });

  it('live with TRC20_RPC_URL: TRC20 runs live, its own settings are checked by the family before anything is set up', async () => {
    const dataDir = tmp('trc20');
    const p = spawnTs('src/main.ts', { TRC20_RPC_URL: 'http://127.0.0.1:9', TRC20_FEE_LIMIT: 'lots', DATA_DIR: dataDir, GRPC_PORT: '0' });
    expect(await p.exited()).toBe(78);
    expect(p.output()).toMatch(/invalid configuration: TRC20_FEE_LIMIT: must be TRX as a decimal/);
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });

  describe('a database that held devnet money', () => {
    let db: TestDatabase;
    let dataDir: string;
    beforeAll(async () => {
      db = await createTestDatabase('cp_mode_devnet');
      dataDir = tmp('devnet-db');
      // `npm start` on devnet: a merchant is paid 500 simulated USDT on TRC20.
      const stack = await startStack({ database: db, dataDir });
      try {
        const m = await createMerchant(stack);
        const md = stack.operator.clone();
        md.set('x-merchant-id', m.merchantId);
        const inv = (await rpc<CreateInvoiceResponse>((cb) => stack.clients.invoices.createInvoice({ amount: '500', network: 'TRC20' }, md, cb))).invoice!;
        expect(inv.livemode).toBe(false);
        await rpc((cb) => stack.clients.devnet.pay({ network: 'TRC20', to: inv.address!, amount: inv.pay_amount }, stack.operator, cb));
        await rpc((cb) => stack.clients.devnet.mine({ network: 'TRC20', blocks: inv.required_confirmations }, stack.operator, cb));
        await eventually(
          async () => ((await rpc<Invoice>((cb) => stack.clients.invoices.getInvoice({ uuid: inv.uuid }, md, cb))).status === 'paid' ? true : undefined),
          15_000,
          'the devnet invoice paid',
        );
      } finally {
        await stack.stop();
      }
    });
    afterAll(async () => {
      await db?.drop();
    });

    it('recorded devnet at its first start', async () => {
      const [row] = await query<{ value: { mode: string; recorded_at: string; inferred?: string } }>(db.url, 'select value from system_settings where key = $1', [CHAIN_MODE_KEY]);
      expect(row!.value).toEqual({ mode: 'devnet', recorded_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    });

    it.each([
      ['src/main.ts', 'the daemon'],
      ['src/start-all.ts', '`npm start`'],
    ])('%s (%s) refuses to start live on it: exit 78, saying why and what to do; nothing of it changed', async (entry) => {
      const before = await query(db.url, `select (select count(*) from invoices) as invoices, (select value from system_settings where key = $1) as mode`, [CHAIN_MODE_KEY]);
      const p = spawnTs(entry, { DATABASE_URL: db.url, DATA_DIR: dataDir, GRPC_PORT: '0', HTTP_PORT: '0', POLYGON_RPC_URL: 'http://127.0.0.1:9' });
      expect(await p.exited()).toBe(78);
      expect(p.output()).toMatch(
        /invalid configuration: POLYGON_RPC_URL: this daemon would run live \(POLYGON_RPC_URL is set\), but its database was created in devnet mode and may hold simulated devnet money, which must never be paid out on a real chain; refusing to start\. Point DATABASE_URL \(or DATA_DIR, for the embedded database\) at a new database for live/,
      );
      expect(p.output()).not.toMatch(/gRPC server listening/);
      expect(await query(db.url, `select (select count(*) from invoices) as invoices, (select value from system_settings where key = $1) as mode`, [CHAIN_MODE_KEY])).toEqual(before);
    });
  });
});

/**
 * Databases from before the record: inferred from what they hold (src/security/database-mode.ts).
 * On real, migrated databases; the devnet clock offset and watcher cursors are what earlier
 * versions wrote.
 */
describe('the mode of a database from before the record', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase('cp_mode_legacy');
    const orm = await openDatabase({ clientUrl: db.url });
    await orm.close(true);
  });
  afterEach(async () => {
    await db?.drop();
  });
  const cursor = (network: string) => query(db.url, `insert into watcher_cursors (network, cursor, paused, updated_at) values ($1, '{"height": 10, "hash": "0x01"}', false, now())`, [network]);
  const stored = async () => (await query<{ value: { mode: string; inferred?: string } }>(db.url, 'select value from system_settings where key = $1', [CHAIN_MODE_KEY]))[0]?.value ?? null;

  it('unused: takes the mode of the daemon that starts on it', async () => {
    await expect(verifyDatabaseModeAt(db.url, { mode: 'live', from: 'POLYGON_RPC_URL' }, { record: true })).resolves.toEqual({ mode: 'live', recorded: true });
    expect(await stored()).toMatchObject({ mode: 'live' });
    await expect(verifyDatabaseModeAt(db.url, { mode: 'devnet', from: null }, { record: true })).rejects.toBeInstanceOf(DatabaseModeMismatchError);
  });

  it('a watcher ran on TRC20 (only devnet could run it): devnet, and a live start is refused', async () => {
    await cursor('POLYGON');
    await cursor('TRC20');
    const refused = await verifyDatabaseModeAt(db.url, { mode: 'live', from: 'CHAIN_MODE' }, { record: true }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DatabaseModeMismatchError);
    expect(String(refused)).toMatch(/created in devnet mode \(inferred: watchers ran on TRC20, which could only run on devnet\)/);
    expect(await stored()).toMatchObject({ mode: 'devnet', inferred: 'watchers ran on TRC20, which could only run on devnet' });
  });

  it('the devnet clock was advanced: devnet', async () => {
    await cursor('POLYGON');
    await query(db.url, `insert into system_settings (key, value, updated_at) values ('devnet_clock_offset_ms', '86400000', now())`);
    await expect(verifyDatabaseModeAt(db.url, { mode: 'devnet', from: null }, { record: true })).resolves.toEqual({ mode: 'devnet', recorded: true, inferred: 'the devnet clock was advanced' });
  });

  it('history on EVM networks only: the mode must be stated once with CHAIN_MODE; then it is recorded', async () => {
    await cursor('BEP20');
    await cursor('POLYGON');
    const unknown = await verifyDatabaseModeAt(db.url, { mode: 'live', from: 'POLYGON_RPC_URL' }, { record: true }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(DatabaseModeUnknownError);
    expect(String(unknown)).toMatch(
      /CHAIN_MODE: this database predates the recorded chain mode and has history \(watchers on BEP20, POLYGON\).*CHAIN_MODE=live only if it always ran with CHAIN_MODE=live/,
    );
    expect(await stored()).toBeNull();
    await expect(verifyDatabaseModeAt(db.url, { mode: 'live', from: 'CHAIN_MODE' }, { record: true })).resolves.toMatchObject({ mode: 'live', recorded: true });
    // Recorded: later starts need no statement.
    await expect(verifyDatabaseModeAt(db.url, { mode: 'live', from: 'POLYGON_RPC_URL' }, { record: true })).resolves.toMatchObject({ mode: 'live', recorded: false });
  });

  it('before migrations (a standby waiting for the engine lock) only an existing record is checked, nothing is written', async () => {
    await expect(verifyDatabaseModeAt(db.url, { mode: 'live', from: 'POLYGON_RPC_URL' }, { record: false })).resolves.toBeNull();
    expect(await stored()).toBeNull();
    await query(db.url, `insert into system_settings (key, value, updated_at) values ($1, $2, now())`, [CHAIN_MODE_KEY, JSON.stringify({ mode: 'devnet', recorded_at: new Date().toISOString() })]);
    await expect(verifyDatabaseModeAt(db.url, { mode: 'live', from: 'POLYGON_RPC_URL' }, { record: false })).rejects.toBeInstanceOf(DatabaseModeMismatchError);
  });
});
