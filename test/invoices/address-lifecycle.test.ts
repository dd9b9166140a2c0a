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
    (await stack.daemon.orm.em.fork().execute<{ state: string; invoice_uuid: string | null }[]>(`select state, invoice_uuid from deposit_addresses where network = 'ARBITRUM' and address = ?`, [address]))[0]!;

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
