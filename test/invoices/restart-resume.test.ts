import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { createMerchant, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { advance, createInvoice, getInvoice } from './helpers';

jest.setTimeout(90_000);

/**
 * Restart of open invoice actors: restoreAll rebuilds them without timers, resumeAll re-arms the
 * timers and commits what fell due while the daemon was down (most RESUMEs change nothing and are
 * applied without a queue turn; those are checked here through their effects).
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

  const events = async (uuid: string): Promise<string[]> =>
    (await sql.query<{ type: string }>('select type from outbox_events where aggregate_id = $1 order by seq', [uuid])).rows.map((r) => r.type);

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
    await sql.query(
      `insert into system_settings (key, value, updated_at) values ($1, $2, now()) on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
      [key, JSON.stringify(offset + 10 * 60_000)],
    );

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
});
