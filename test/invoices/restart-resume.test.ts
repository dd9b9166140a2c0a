import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import Decimal from 'decimal.js';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { createMerchant, eventually, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { advance, balance, createInvoice, getInvoice, mine, pay, payAndConfirm } from './helpers';

jest.setTimeout(90_000);

/**
 * Restart of open invoice actors: restoreAll rebuilds them without timers; resumeAll sends RESUME
 * to every actor, which re-enters its state and arms its timer from the context's deadline, and
 * commits what fell due while the daemon was down. Checked here through their effects.
 */
describe('open invoices across a restart', () => {
  let db: TestDatabase;
  let sql: pg.Client;
  let stack: Stack | null = null;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-resume-'));

  beforeAll(async () => {
    db = await createTestDatabase('cp_resume');
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  });
  afterAll(async () => {
    await stack?.stop();
    await sql.end();
    await db.drop();
  });

  const events = async (uuid: string): Promise<string[]> => (await sql.query<{ type: string }>('select type from outbox_events where aggregate_id = $1 order by seq', [uuid])).rows.map((r) => r.type);

  it('an expiry that fell due while down is committed once at start; a later one still fires on the re-armed timer', async () => {
    stack = await startStack({ database: db, dataDir });
    const m: MerchantCredentials = await createMerchant(stack, { webhook_url: 'https://merchant.example/hook' });
    const soon = await createInvoice(stack, m, { amount: '10', lifetime_minutes: 5, order_id: 'resume-soon' });
    const later = await createInvoice(stack, m, { amount: '10', lifetime_minutes: 60, order_id: 'resume-later' });
    await stack.stop();
    stack = null;

    // Ten minutes pass on the devnet clock while no daemon runs (the offset the daemon restores at start).
    const key = 'devnet_clock_offset_ms';
    const saved = await sql.query<{ value: string }>('select value from system_settings where key = $1', [key]);
    const offset = saved.rows[0] ? Number(JSON.parse(saved.rows[0].value)) : 0;
    await sql.query(`insert into system_settings (key, value, updated_at) values ($1, $2, now()) on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`, [
      key,
      JSON.stringify(offset + 10 * 60_000),
    ]);

    stack = await startStack({ database: db, dataDir });
    // Committed during start-up: startDaemon resolves after resumeAll.
    const row = await sql.query<{ status: string; open: boolean }>('select status, open from invoices where uuid = $1', [soon.uuid]);
    expect(row.rows[0]!.status).toBe('expired');
    expect(await events(soon.uuid)).toEqual(['invoice.expired']);
    expect((await getInvoice(stack, m, later.uuid)).status).toBe('pending');
    expect(await events(later.uuid)).toEqual([]);

    // The restored actor of `later` has no timer until RESUME re-arms it: this proves it did.
    await advance(stack, 51 * 60);
    await waitForStatus(stack, m, later.uuid, 'expired');
    expect(await events(later.uuid)).toEqual(['invoice.expired']);

    // A second restart finds nothing new to commit: no event is written twice.
    await stack.stop();
    stack = await startStack({ database: db, dataDir });
    expect(await events(soon.uuid)).toEqual(['invoice.expired']);
    expect(await events(later.uuid)).toEqual(['invoice.expired']);
  });
  it('resumed actors take events at once and still expire, end and close on time, each event once', async () => {
    const db2 = await createTestDatabase('cp_resume_deferred');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-resume-deferred-'));
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    let s = await startStack({ database: db2, dataDir: dir });
    try {
      const m = await createMerchant(s, { webhook_url: 'https://merchant.example/hook' });
      const paid = await createInvoice(s, m, { amount: '10', network: 'POLYGON', lifetime_minutes: 60, order_id: 'deferred-paid' });
      await payAndConfirm(s, m, paid, paid.pay_amount, 'paid');
      const partial = await createInvoice(s, m, { amount: '10', network: 'POLYGON', lifetime_minutes: 60, order_id: 'deferred-partial' });
      await payAndConfirm(s, m, partial, '4', 'partially_paid');
      const pending = await createInvoice(s, m, { amount: '10', network: 'POLYGON', lifetime_minutes: 60, order_id: 'deferred-pending' });
      await s.stop();

      s = await startStack({ database: db2, dataDir: dir, logger });
      // Every restored actor took its RESUME; none of them had anything to commit yet.
      const resumed = lines.find((l) => l.msg === 'invoice actors resumed');
      expect(resumed).toMatchObject({ resumed: 3 });

      // A restored actor with no timer armed yet: a payment moves it at once.
      await pay(s, 'POLYGON', pending.address, pending.pay_amount);
      await waitForStatus(s, m, pending.uuid, 'confirming');
      await mine(s, 'POLYGON', pending.required_confirmations);
      await waitForStatus(s, m, pending.uuid, 'paid');

      // The partially paid one ends at its expiry, through the timer its RESUME armed.
      await advance(s, 61 * 60);
      await waitForStatus(s, m, partial.uuid, 'underpaid');

      // Every late-payment window is over a day later: all three close, their addresses go back.
      await advance(s, 24 * 3600 + 60);
      const sql2 = new pg.Client({ connectionString: db2.url });
      await sql2.connect();
      try {
        await eventually(async () => ((await sql2.query('select count(*)::int as n from invoices where open')).rows[0].n === 0 ? true : undefined), 15_000, 'every invoice closed');
        const types = async (uuid: string) => (await sql2.query<{ type: string }>('select type from outbox_events where aggregate_id = $1 order by seq', [uuid])).rows.map((r) => r.type);
        expect(await types(paid.uuid)).toEqual(['invoice.confirming', 'invoice.paid']);
        expect(await types(partial.uuid)).toEqual(['invoice.confirming', 'invoice.partially_paid', 'invoice.underpaid']);
        expect(await types(pending.uuid)).toEqual(['invoice.confirming', 'invoice.paid']);
        const free = await sql2.query('select count(*)::int as n from deposit_addresses where invoice_uuid = any($1)', [[paid.uuid, partial.uuid, pending.uuid]]);
        expect(free.rows[0].n).toBe(0);
        // Credited once each, across the restart: two paid (merchant_net) and the underpaid one's
        // 4 received less its fees.
        const underpaidNet = new Decimal('4').minus(partial.platform_fee).minus(partial.network_fee);
        const expected = new Decimal(paid.merchant_net).plus(pending.merchant_net).plus(underpaidNet);
        const { available, held } = await balance(s, m);
        expect(new Decimal(available).equals(expected)).toBe(true);
        expect(held).toBe('0');
      } finally {
        await sql2.end();
      }
    } finally {
      await s.stop();
      await db2.drop();
    }
  });
});
