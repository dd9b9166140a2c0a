import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '../support/database';
import { startStack, createMerchant, waitForStatus, eventually, type Stack, type MerchantCredentials } from '../support/stack';
import { createInvoice, advance, pay, getInvoice } from './helpers';

describe('deposit address lifecycle', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack({ env: { LATE_PAYMENT_WINDOW_MINUTES: '60' } });
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const stateOf = async (address: string): Promise<{ state: string; invoice_uuid: string | null }> =>
    (
      await stack.daemon.orm.em
        .fork()
        .execute<{ state: string; invoice_uuid: string | null }[]>(`select state, invoice_uuid from deposit_addresses where network = 'ARBITRUM' and address = ?`, [address])
    )[0]!;

  it('an address returns to the pool only after the late-payment window; a later transfer to it is unattributed', async () => {
    const inv = await createInvoice(stack, m, { amount: '5', network: 'ARBITRUM', lifetime_minutes: 5 });
    await advance(stack, 5 * 60 + 1);
    await waitForStatus(stack, m, inv.uuid, 'expired');
    // Expired, but within the late window: still held by the invoice.
    expect(await stateOf(inv.address)).toEqual({ state: 'allocated', invoice_uuid: inv.uuid });
    await advance(stack, 30 * 60);
    expect((await stateOf(inv.address)).state).toBe('allocated');
    await advance(stack, 31 * 60);
    await eventually(async () => ((await stateOf(inv.address)).state === 'free' ? true : undefined));
    const rows = await stack.daemon.orm.em.fork().execute<{ open: boolean }[]>(`select open from invoices where uuid = ?`, [inv.uuid]);
    expect(rows[0]!.open).toBe(false);
    // After the window, money to that address belongs to nobody automatically.
    const tx = await pay(stack, 'ARBITRUM', inv.address, '5');
    await eventually(async () => {
      const r = await stack.daemon.orm.em.fork().execute<{ reason: string }[]>(`select reason from unattributed_deposits where tx_hash = ?`, [tx.tx_hash]);
      return r[0]?.reason;
    });
    expect((await getInvoice(stack, m, inv.uuid)).status).toBe('expired');
  });
});

describe('address reservations of the engine', () => {
  it('a new invoice is one statement on a reserved address; a restarted engine returns leftover reservations to the pool', async () => {
    const database = await createTestDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-reserve-'));
    const states = async (stack: Stack): Promise<Record<string, number>> => {
      const rows = await stack.daemon.orm.em.fork().execute<{ state: string; n: string }[]>(`select state, count(*)::text as n from deposit_addresses where network = 'POLYGON' group by state`);
      return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
    };
    // Production's pool (the suite's default is smaller), so free addresses remain beside the engine's reservation of 64.
    const env = { ADDRESS_POOL_BATCH: '200', ADDRESS_POOL_MIN_FREE: '50' };
    let stack = await startStack({ database, dataDir, env });
    try {
      const m = await createMerchant(stack);
      const first = await Promise.all(Array.from({ length: 5 }, () => createInvoice(stack, m, { amount: '5', network: 'POLYGON' })));
      const before = await states(stack);
      expect(before.allocated).toBe(5);
      expect(before.reserved).toBeGreaterThan(0); // the rest of the engine's batch
      const reservedBefore = before.reserved!;
      await stack.stop();

      stack = await startStack({ database, dataDir, env });
      const after = await states(stack);
      expect(after.reserved ?? 0).toBe(0);
      expect(after.allocated).toBe(5);
      expect(after.free).toBe(before.free! + reservedBefore);
      // The next invoice gets the lowest address that was reserved and never used, not a new one.
      const next = await createInvoice(stack, m, { amount: '5', network: 'POLYGON' });
      const indexOf = async (address: string) =>
        Number((await stack.daemon.orm.em.fork().execute<{ i: number }[]>(`select derivation_index as i from deposit_addresses where network = 'POLYGON' and address = ?`, [address]))[0]!.i);
      const used = await Promise.all(first.map((inv) => indexOf(inv.address)));
      expect(await indexOf(next.address)).toBe(Math.max(...used) + 1);
      const owners = await stack.daemon.orm.em.fork().execute<{ invoice_uuid: string }[]>(`select invoice_uuid from deposit_addresses where network = 'POLYGON' and state = 'allocated'`);
      expect(new Set(owners.map((o) => o.invoice_uuid))).toEqual(new Set([...first.map((i) => i.uuid), next.uuid]));
    } finally {
      await stack.stop();
      await database.drop();
    }
  });
});
