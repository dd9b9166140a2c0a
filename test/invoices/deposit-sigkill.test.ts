import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase } from '../../src/store/orm';
import type { CreateMerchantResponse, MerchantServiceClient } from '../../src/grpc/generated/chainpay/v1/merchants';
import type { CreateInvoiceResponse, Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { grpcPortFrom, spawnTs, type Spawned } from '../support/processes';
import { eventually, rpc } from '../support/stack';
import { expectLedgerExact, mine, processRpcs, WD_ENV, type Rpcs } from '../withdrawals/support';

jest.setTimeout(300_000);

/** A daemon process on the shared database and DATA_DIR; `ended` resolves with its exit code once its output is complete. */
function spawnDaemon(db: TestDatabase, dataDir: string, killAt?: string): { proc: Spawned; ended: Promise<number | null> } {
  const proc = spawnTs('src/main.ts', { DATABASE_URL: db.url, DATA_DIR: dataDir, GRPC_PORT: '0', DEVNET_BLOCK_MS: '0', CHAINPAY_TEST_KILL_AT: killAt, ...WD_ENV });
  const ended = new Promise<number | null>((resolve) => proc.child.once('close', (code) => resolve(code)));
  return { proc, ended };
}

async function startProcess(db: TestDatabase, dataDir: string, killAt?: string): Promise<{ proc: Spawned; ended: Promise<number | null>; r: Rpcs; merchants: MerchantServiceClient; close(): void }> {
  const { proc, ended } = spawnDaemon(db, dataDir, killAt);
  const address = `127.0.0.1:${grpcPortFrom(await proc.waitFor(/gRPC server listening/, 90_000))}`;
  return { proc, ended, ...processRpcs(address, dataDir) };
}

/**
 * The deposit path runs one way: the watcher records a block's deposits with its cursor, then the
 * invoice decides. Killed between the two (CHAINPAY_TEST_KILL_AT=after_deposit_recorded), the
 * recorded deposit is decided after the restart, exactly once: one payment row, one settlement
 * journal, one event of each kind, and the block is not read again (the cursor is past it).
 */
describe('a deposit recorded by the watcher, the daemon SIGKILLed before its invoice decided', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-dep-kill-'));

  beforeAll(async () => {
    db = await createTestDatabase('cp_depkill');
  });
  afterAll(async () => {
    await orm?.close();
    await db?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('is credited exactly once after the restart', async () => {
    const a = await startProcess(db, dataDir, 'after_deposit_recorded');
    const created = await rpc<CreateMerchantResponse>((cb) => a.merchants.createMerchant({ name: 'Deposit kill shop', webhook_url: 'https://merchant.example/hook' }, a.r.operator, cb));
    const merchantId = created.merchant!.merchant_id;
    const md = a.r.forMerchant(merchantId);
    const inv = (await rpc<CreateInvoiceResponse>((cb) => a.r.invoices.createInvoice({ amount: '25', network: 'TRC20' }, md, cb))).invoice!;
    // The daemon may die before it answers: the payment is on chain once devnet committed it.
    await rpc((cb) => a.r.devnet.pay({ network: 'TRC20', to: inv.address!, amount: inv.pay_amount }, a.r.operator, cb)).catch(() => null);
    expect(await a.ended).toBeNull(); // SIGKILL: no exit code
    a.close();
    expect(a.proc.output()).toMatch(/"point":"after_deposit_recorded"/);

    // Recorded with the cursor, nothing decided: no payment row, no journal, no event.
    orm = await openDatabase({ clientUrl: db.url });
    const sql = <T>(text: string, values: unknown[] = []): Promise<T[]> => orm.em.fork().execute<T[]>(text, values);
    const seen = await sql<{ invoice_uuid: string; decided: boolean; block_height: string }>(`select invoice_uuid, decided, block_height from seen_deposits where network = 'TRC20'`);
    expect(seen).toEqual([{ invoice_uuid: inv.uuid, decided: false, block_height: expect.anything() }]);
    const [cursor] = await sql<{ height: string }>(`select cursor->>'height' as height from watcher_cursors where network = 'TRC20'`);
    expect(Number(cursor!.height)).toBeGreaterThanOrEqual(Number(seen[0]!.block_height));
    expect(await sql(`select 1 from invoice_payments`)).toEqual([]);
    expect(await sql(`select 1 from journals where reference like 'invoice:%'`)).toEqual([]);
    expect(await sql(`select 1 from outbox_events where aggregate_id = ?`, [inv.uuid])).toEqual([]);
    expect(await sql(`select 1 from unattributed_deposits`)).toEqual([]);

    // Restarted without the hook: the undecided deposit goes to its invoice before actors resume.
    const b = await startProcess(db, dataDir);
    try {
      expect(b.proc.output()).not.toMatch(/after_deposit_recorded/);
      const confirming = await eventually(async () => ((await sql<{ decided: boolean }>(`select decided from seen_deposits`))[0]?.decided ? true : undefined), 20_000, 'the deposit decided');
      expect(confirming).toBe(true);
      await mine(b.r, 3);
      const paid = await eventually(
        async () => {
          const got = await rpc<Invoice>((cb) => b.r.invoices.getInvoice({ uuid: inv.uuid }, b.r.forMerchant(merchantId), cb));
          return got.status === 'paid' ? got : undefined;
        },
        20_000,
        'the invoice to be paid',
      );
      expect(paid.received_amount).toBe(inv.pay_amount);

      const payments = await sql<{ state: string }>(`select state from invoice_payments where invoice_uuid = ?`, [inv.uuid]);
      expect(payments).toEqual([{ state: 'confirmed' }]);
      const journals = await sql<{ reference: string }>(`select reference from journals where reference like 'invoice:%'`);
      expect(journals.map((j) => j.reference)).toEqual([`invoice:${inv.uuid}:received:${inv.pay_amount}`]);
      const events = await sql<{ type: string }>(`select type from outbox_events where aggregate_id = ? order by seq`, [inv.uuid]);
      expect(events.map((e) => e.type)).toEqual(['invoice.confirming', 'invoice.paid']);
      expect(await sql(`select 1 from unattributed_deposits`)).toEqual([]);
      expect(await sql(`select 1 from seen_deposits where not decided`)).toEqual([]);
      await expectLedgerExact(orm);
    } finally {
      b.close();
      b.proc.child.kill('SIGTERM');
      await b.ended;
    }
  });
});
