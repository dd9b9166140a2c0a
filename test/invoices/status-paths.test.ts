import { startStack, createMerchant, signed, waitForStatus, eventually, rpc, type Stack, type MerchantCredentials } from '../support/stack';
import { createInvoice, pay, mine, reorg, advance, getInvoice, payAndConfirm, balance, count } from './helpers';
import type { ListUnattributedResponse } from '../../src/grpc/generated/chainpay/v1/operator';

describe('invoice status paths on devnet (real gateway, gRPC and PostgreSQL)', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack({ env: { LATE_PAYMENT_WINDOW_MINUTES: '60' } });
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('exact payment: pending -> confirming -> paid; paid_at set; the ledger credits merchant_net once', async () => {
    const inv = await createInvoice(stack, m, { amount: '25', network: 'TRC20' });
    expect(inv).toMatchObject({ status: 'pending', received_amount: '0', confirmations: 0, tx_hash: null, paid_at: null, required_confirmations: 19, network_fee: '1', platform_fee: '0.25', pay_amount: '26.25', merchant_net: '25' });
    const before = await balance(stack, m);
    const tx = await pay(stack, 'TRC20', inv.address, '26.25');
    const seen = await waitForStatus(stack, m, inv.uuid, 'confirming');
    expect(seen.tx_hash).toBe(tx.tx_hash);
    expect(seen.received_amount).toBe('26.25');
    expect(seen.confirmations).toBe(1);
    await mine(stack, 'TRC20', 5);
    await eventually(async () => ((await getInvoice(stack, m, inv.uuid)).confirmations === 6 ? true : undefined));
    expect((await getInvoice(stack, m, inv.uuid)).status).toBe('confirming');
    await mine(stack, 'TRC20', 13);
    const paid = await waitForStatus(stack, m, inv.uuid, 'paid');
    expect(paid.paid_at).not.toBeNull();
    expect(paid.payments).toEqual([expect.objectContaining({ tx_hash: tx.tx_hash, amount: '26.25', status: 'confirmed' })]);
    const after = await balance(stack, m);
    expect(Number(after.available) - Number(before.available)).toBeCloseTo(25, 8);
    await mine(stack, 'TRC20', 3);
    expect((await balance(stack, m)).available).toBe(after.available);
  });

  it('two partial transfers add up to paid', async () => {
    const inv = await createInvoice(stack, m, { amount: '10', network: 'TON' });
    expect(inv.memo).toMatch(/^[0-9A-Z]{10}$/);
    await payAndConfirm(stack, m, inv, '4', 'partially_paid');
    const second = await payAndConfirm(stack, m, inv, '6.1', 'paid');
    expect(second.received_amount).toBe('10.1');
    expect(second.payments).toHaveLength(2);
  });

  it('partially paid then expired: underpaid; credit is what arrived minus fees', async () => {
    const inv = await createInvoice(stack, m, { amount: '20', network: 'BEP20', lifetime_minutes: 5 });
    const before = await balance(stack, m);
    await payAndConfirm(stack, m, inv, '5', 'partially_paid');
    await advance(stack, 6 * 60);
    const under = await waitForStatus(stack, m, inv.uuid, 'underpaid');
    expect(under.received_amount).toBe('5');
    const after = await balance(stack, m);
    // 5 received - 0.2 platform fee - 0 network fee
    expect((Number(after.available) - Number(before.available)).toFixed(8)).toBe('4.80000000');
  });

  it('overpaid', async () => {
    const inv = await createInvoice(stack, m, { amount: '10', network: 'POLYGON' });
    const over = await payAndConfirm(stack, m, inv, '12', 'overpaid');
    expect(over.received_amount).toBe('12');
    expect(over.paid_at).not.toBeNull();
  });

  it('expired with nothing; a late payment within the window moves it to paid with paid_late', async () => {
    const inv = await createInvoice(stack, m, { amount: '3', network: 'SOLANA', lifetime_minutes: 5 });
    await advance(stack, 5 * 60 + 1);
    const expired = await waitForStatus(stack, m, inv.uuid, 'expired');
    expect(expired.received_amount).toBe('0');
    const late = await payAndConfirm(stack, m, inv, inv.pay_amount, 'paid');
    expect(late.paid_late).toBe(true);
  });

  it('a reorg before finality rolls the invoice back; the transfer on the new chain is credited once', async () => {
    await mine(stack, 'ARBITRUM', 25);
    const inv = await createInvoice(stack, m, { amount: '8', network: 'ARBITRUM' });
    await pay(stack, 'ARBITRUM', inv.address, inv.pay_amount);
    await waitForStatus(stack, m, inv.uuid, 'confirming');
    await mine(stack, 'ARBITRUM', 2);
    await reorg(stack, 'ARBITRUM', 4);
    const back = await waitForStatus(stack, m, inv.uuid, 'pending');
    expect(back.received_amount).toBe('0');
    expect(back.payments[0].status).toBe('reverted');
    const before = await balance(stack, m);
    const paid = await payAndConfirm(stack, m, inv, inv.pay_amount, 'paid');
    expect(paid.received_amount).toBe(inv.pay_amount);
    expect(Number((await balance(stack, m)).available) - Number(before.available)).toBeCloseTo(8, 8);
  });

  it('a look-alike (fake) token transfer is ignored', async () => {
    const inv = await createInvoice(stack, m, { amount: '5', network: 'TRC20' });
    await pay(stack, 'TRC20', inv.address, inv.pay_amount, { token: 'fake' });
    await mine(stack, 'TRC20', 20);
    await new Promise((r) => setTimeout(r, 300));
    const after = await getInvoice(stack, m, inv.uuid);
    expect(after.status).toBe('pending');
    expect(after.received_amount).toBe('0');
  });

  it('a transfer to a free pool address, or with an unknown TON memo, is recorded as unattributed, never lost', async () => {
    const free = await stack.daemon.orm.em.fork().getConnection().execute<{ address: string }[]>(`select address from deposit_addresses where network = 'BEP20' and state = 'free' order by derivation_index desc limit 1`);
    const tx1 = await pay(stack, 'BEP20', free[0]!.address, '7.5');
    const ton = await createInvoice(stack, m, { amount: '1', network: 'TON' });
    const tx2 = await pay(stack, 'TON', ton.address, '2', { memo: 'NOSUCHMEMO' });
    const list = await eventually(async () => {
      const r = await rpc<ListUnattributedResponse>((cb) => stack.clients.operator.listUnattributed({}, stack.operator, cb)).catch(() => null);
      if (r) return r.deposits.length >= 2 ? r.deposits : undefined;
      const n = await count(stack, `select count(*)::int as n from unattributed_deposits where tx_hash in (?, ?)`, [tx1.tx_hash, tx2.tx_hash]);
      return n === 2 ? [] : undefined;
    });
    expect(list).toBeDefined();
    const rows = await stack.daemon.orm.em.fork().getConnection().execute<{ reason: string; amount: string; memo: string | null }[]>(`select reason, amount, memo from unattributed_deposits where tx_hash in (?, ?) order by reason`, [tx1.tx_hash, tx2.tx_hash]);
    expect(rows.map((r) => r.reason)).toEqual(['free_pool_address', 'unknown_memo']);
    expect((await getInvoice(stack, m, ton.uuid)).status).toBe('pending');
  });

  it('another merchant cannot see the invoice (404)', async () => {
    const other = await createMerchant(stack, { name: 'Other shop' });
    const inv = await createInvoice(stack, m, { amount: '5' });
    const res = await signed(stack, other, 'GET', `/v1/invoices/${inv.uuid}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('invoice_not_found');
    const change = await signed(stack, other, 'POST', `/v1/invoices/${inv.uuid}/network`, { network: 'TON' });
    expect(change.status).toBe(404);
  });
});
