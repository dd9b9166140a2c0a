import { startStack, createMerchant, signed, waitForStatus, eventually, rpc, type Stack, type MerchantCredentials } from '../support/stack';
import { createInvoice, pay, mine, reorg, advance, getInvoice, payAndConfirm, balance, count } from './helpers';
import type { ListUnattributedResponse } from '../../src/grpc/generated/chainpay/v1/operator';
import { watcher } from '../operator/support';

/**
 * Every test that settles uses a merchant of its own, so its balance starts at "0" and is compared as
 * an exact string. Expected credits are worked out by hand from DESIGN.md "Money" (default fee 1 %;
 * buyer_network_fee 1 on TRC20, 0 elsewhere): a settled invoice credits received − platform_fee − network_fee.
 */

describe('invoice status paths on devnet (real gateway, gRPC and PostgreSQL)', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    // Production's pool (the suite's default is smaller), so free addresses remain beside the engine's reservation of 64.
    stack = await startStack({ env: { LATE_PAYMENT_WINDOW_MINUTES: '60', ADDRESS_POOL_BATCH: '200', ADDRESS_POOL_MIN_FREE: '50' } });
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('exact payment: pending -> confirming -> paid; paid_at set; the ledger credits merchant_net once', async () => {
    const shop = await createMerchant(stack, { name: 'Exact shop' });
    const inv = await createInvoice(stack, shop, { amount: '25', network: 'TRC20' });
    expect(inv).toMatchObject({
      status: 'pending',
      received_amount: '0',
      confirmations: 0,
      tx_hash: null,
      paid_at: null,
      required_confirmations: 20,
      network_fee: '1',
      platform_fee: '0.25',
      pay_amount: '26.25',
      merchant_net: '25',
    });
    expect((await balance(stack, shop)).available).toBe('0');
    const tx = await pay(stack, 'TRC20', inv.address, '26.25');
    const seen = await waitForStatus(stack, shop, inv.uuid, 'confirming');
    expect(seen.tx_hash).toBe(tx.tx_hash);
    expect(seen.received_amount).toBe('26.25');
    expect(seen.confirmations).toBe(1);
    await mine(stack, 'TRC20', 5);
    await eventually(async () => ((await getInvoice(stack, shop, inv.uuid)).confirmations === 6 ? true : undefined));
    expect((await getInvoice(stack, shop, inv.uuid)).status).toBe('confirming');
    await mine(stack, 'TRC20', 14);
    const paid = await waitForStatus(stack, shop, inv.uuid, 'paid');
    expect(paid.paid_at).not.toBeNull();
    expect(paid.payments).toEqual([expect.objectContaining({ tx_hash: tx.tx_hash, amount: '26.25', status: 'confirmed' })]);
    // 26.25 received − 0.25 platform fee − 1 network fee
    expect(await balance(stack, shop)).toMatchObject({ available: '25', held: '0' });
    await mine(stack, 'TRC20', 3);
    expect(await balance(stack, shop)).toMatchObject({ available: '25', held: '0' });
  });

  it('two partial transfers add up to paid', async () => {
    const shop = await createMerchant(stack, { name: 'Partial shop' });
    const inv = await createInvoice(stack, shop, { amount: '10', network: 'TON' });
    expect(inv.memo).toMatch(/^[0-9A-Z]{10}$/);
    expect(inv).toMatchObject({ pay_amount: '10.1', platform_fee: '0.1', network_fee: '0' });
    await payAndConfirm(stack, shop, inv, '4', 'partially_paid');
    // Nothing is booked while the invoice has no outcome.
    expect((await balance(stack, shop)).available).toBe('0');
    const second = await payAndConfirm(stack, shop, inv, '6.1', 'paid');
    expect(second.received_amount).toBe('10.1');
    expect(second.payments).toHaveLength(2);
    // 10.1 received − 0.1 platform fee − 0 network fee
    expect(await balance(stack, shop)).toMatchObject({ available: '10', held: '0' });
  });

  it('partially paid then expired: underpaid; credit is what arrived minus fees', async () => {
    const shop = await createMerchant(stack, { name: 'Underpaid shop' });
    const inv = await createInvoice(stack, shop, { amount: '20', network: 'BEP20', lifetime_minutes: 5 });
    expect(inv).toMatchObject({ pay_amount: '20.2', platform_fee: '0.2', network_fee: '0' });
    await payAndConfirm(stack, shop, inv, '5', 'partially_paid');
    await advance(stack, 6 * 60);
    const under = await waitForStatus(stack, shop, inv.uuid, 'underpaid');
    expect(under.received_amount).toBe('5');
    // 5 received − 0.2 platform fee − 0 network fee
    expect(await balance(stack, shop)).toMatchObject({ available: '4.8', held: '0' });
  });

  it('overpaid: the whole received amount less the fees is credited', async () => {
    const shop = await createMerchant(stack, { name: 'Overpaid shop' });
    const inv = await createInvoice(stack, shop, { amount: '10', network: 'POLYGON' });
    expect(inv).toMatchObject({ pay_amount: '10.1', platform_fee: '0.1', network_fee: '0' });
    const over = await payAndConfirm(stack, shop, inv, '12', 'overpaid');
    expect(over.received_amount).toBe('12');
    expect(over.paid_at).not.toBeNull();
    // 12 received − 0.1 platform fee − 0 network fee
    expect(await balance(stack, shop)).toMatchObject({ available: '11.9', held: '0' });
  });

  it('expired with nothing; a late payment within the window moves it to paid with paid_late', async () => {
    const shop = await createMerchant(stack, { name: 'Late shop' });
    const inv = await createInvoice(stack, shop, { amount: '3', network: 'SOLANA', lifetime_minutes: 5 });
    expect(inv).toMatchObject({ pay_amount: '3.03', platform_fee: '0.03', network_fee: '0' });
    await advance(stack, 5 * 60 + 1);
    const expired = await waitForStatus(stack, shop, inv.uuid, 'expired');
    expect(expired.received_amount).toBe('0');
    expect((await balance(stack, shop)).available).toBe('0');
    const late = await payAndConfirm(stack, shop, inv, '3.03', 'paid');
    expect(late.paid_late).toBe(true);
    // 3.03 received − 0.03 platform fee − 0 network fee
    expect(await balance(stack, shop)).toMatchObject({ available: '3', held: '0' });
  });

  it('a reorg before finality rolls the invoice back; the transfer on the new chain is credited once', async () => {
    const shop = await createMerchant(stack, { name: 'Reorg shop' });
    await mine(stack, 'ARBITRUM', 25);
    const inv = await createInvoice(stack, shop, { amount: '8', network: 'ARBITRUM' });
    expect(inv).toMatchObject({ pay_amount: '8.08', platform_fee: '0.08', network_fee: '0' });
    await pay(stack, 'ARBITRUM', inv.address, '8.08');
    await waitForStatus(stack, shop, inv.uuid, 'confirming');
    await mine(stack, 'ARBITRUM', 2);
    await reorg(stack, 'ARBITRUM', 4);
    const back = await waitForStatus(stack, shop, inv.uuid, 'pending');
    expect(back.received_amount).toBe('0');
    expect(back.payments[0].status).toBe('reverted');
    // The reverted transfer never reached an outcome: nothing was booked for it.
    expect((await balance(stack, shop)).available).toBe('0');
    const paid = await payAndConfirm(stack, shop, inv, '8.08', 'paid');
    expect(paid.received_amount).toBe('8.08');
    // 8.08 received − 0.08 platform fee − 0 network fee, once
    expect(await balance(stack, shop)).toMatchObject({ available: '8', held: '0' });
    await mine(stack, 'ARBITRUM', 3);
    expect(await balance(stack, shop)).toMatchObject({ available: '8', held: '0' });
  });

  it('a look-alike (fake) token transfer is ignored; a real one of the same amount then counts', async () => {
    const shop = await createMerchant(stack, { name: 'Fake token shop' });
    const inv = await createInvoice(stack, shop, { amount: '5', network: 'TRC20' });
    expect(inv).toMatchObject({ pay_amount: '6.05', platform_fee: '0.05', network_fee: '1' });
    const fake = await pay(stack, 'TRC20', inv.address, '6.05', { token: 'fake' });
    await mine(stack, 'TRC20', 20);
    // The watcher's cursor (its last fully processed block) must be past the fake transfer's block,
    // so "still pending" below means the watcher saw that block and ignored the transfer.
    const w = await eventually(
      async () => {
        const s = await watcher(stack, 'TRC20');
        return s.state === 'running' && BigInt(s.cursor) > BigInt(fake.block_height) ? s : undefined;
      },
      10_000,
      'TRC20 watcher to pass the fake transfer',
    );
    expect(BigInt(w.cursor)).toBeGreaterThan(BigInt(fake.block_height));
    const after = await getInvoice(stack, shop, inv.uuid);
    expect(after).toMatchObject({ status: 'pending', received_amount: '0', confirmations: 0, tx_hash: null, payments: [] });
    expect(await count(stack, 'select count(*)::int as n from invoice_payments where tx_hash = ?', [fake.tx_hash])).toBe(0);
    expect(await count(stack, 'select count(*)::int as n from unattributed_deposits where tx_hash = ?', [fake.tx_hash])).toBe(0);
    expect((await balance(stack, shop)).available).toBe('0');

    const paid = await payAndConfirm(stack, shop, inv, '6.05', 'paid');
    expect(paid).toMatchObject({ received_amount: '6.05', tx_hash: paid._tx });
    expect(paid.payments).toEqual([expect.objectContaining({ tx_hash: paid._tx, amount: '6.05', status: 'confirmed' })]);
    // 6.05 received − 0.05 platform fee − 1 network fee
    expect(await balance(stack, shop)).toMatchObject({ available: '5', held: '0' });
  });

  it('a transfer to a free pool address, or with an unknown TON memo, is recorded as unattributed, never lost', async () => {
    const free = await stack.daemon.orm.em
      .fork()
      .getConnection()
      .execute<{ address: string }[]>(`select address from deposit_addresses where network = 'BEP20' and state = 'free' order by derivation_index desc limit 1`);
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
    const rows = await stack.daemon.orm.em
      .fork()
      .getConnection()
      .execute<{ reason: string; amount: string; memo: string | null }[]>(`select reason, amount, memo from unattributed_deposits where tx_hash in (?, ?) order by reason`, [tx1.tx_hash, tx2.tx_hash]);
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
