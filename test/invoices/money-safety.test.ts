import { startStack, createMerchant, waitForStatus, eventually, rpc, signed, type Stack, type MerchantCredentials } from '../support/stack';
import { createInvoice, pay, mine, advance, getInvoice, type Json } from './helpers';
import { caughtUp, query } from '../operator/support';

/**
 * Payments are never lost at the edges of time: expiry waits for the watcher to have processed the
 * chain up to expires_at ("in time" is judged by block time), and a payment still confirming when
 * the late-payment window ends is followed to the end while later transfers become unattributed.
 */
describe('invoice money safety at expiry and at the end of the late window (devnet, real daemon)', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack({ env: { LATE_PAYMENT_WINDOW_MINUTES: '60' } });
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const pauseWatcher = (network: string) => rpc((cb) => stack.clients.operator.pauseWatcher({ network }, stack.operator, cb));
  const resumeWatcher = (network: string) => rpc((cb) => stack.clients.operator.resumeWatcher({ network }, stack.operator, cb));
  const outboxTypes = async (uuid: string): Promise<string[]> =>
    (await query<{ type: string }>(stack, 'select type from outbox_events where aggregate_id = ? order by seq', [uuid])).map((r) => r.type);
  const settle = (ms = 600) => new Promise((r) => setTimeout(r, ms));

  it('a payment made before expires_at while the watcher was paused ends paid: not expired, not late', async () => {
    const inv = await createInvoice(stack, m, { amount: '7', network: 'BEP20', lifetime_minutes: 5 });
    await caughtUp(stack, 'BEP20');
    await pauseWatcher('BEP20');
    const tx = await pay(stack, 'BEP20', inv.address, inv.pay_amount); // mined now, before expires_at
    await advance(stack, 6 * 60); // the clock passes expires_at while nobody has seen the payment
    await settle();
    // The watcher has not processed the chain up to expires_at: the invoice waits.
    expect((await getInvoice(stack, m, inv.uuid)).status).toBe('pending');

    await resumeWatcher('BEP20');
    await waitForStatus(stack, m, inv.uuid, 'confirming');
    await caughtUp(stack, 'BEP20');
    await settle(); // the watcher's chain time is past expires_at now: the expiry check ran
    expect((await getInvoice(stack, m, inv.uuid)).status).toBe('confirming');
    await mine(stack, 'BEP20', inv.required_confirmations);
    const paid: Json = await waitForStatus(stack, m, inv.uuid, 'paid');
    expect(paid).toMatchObject({ paid_late: false, received_amount: inv.pay_amount, tx_hash: tx.tx_hash });
    const types = await outboxTypes(inv.uuid);
    expect(types).not.toContain('invoice.expired');
    expect(types).not.toContain('invoice.paid_late');
    expect(types).toEqual(expect.arrayContaining(['invoice.confirming', 'invoice.paid']));
  });

  it('an invoice with nothing paid waits while its watcher is paused and expires once it runs', async () => {
    const inv = await createInvoice(stack, m, { amount: '3', network: 'SOLANA', lifetime_minutes: 5 });
    await caughtUp(stack, 'SOLANA');
    await pauseWatcher('SOLANA');
    await advance(stack, 5 * 60 + 1);
    await settle();
    expect((await getInvoice(stack, m, inv.uuid)).status).toBe('pending');
    await resumeWatcher('SOLANA');
    const expired: Json = await waitForStatus(stack, m, inv.uuid, 'expired');
    expect(expired.received_amount).toBe('0');
    expect(await outboxTypes(inv.uuid)).toEqual(['invoice.expired']);

    // With the watcher running (and no block since), expiry happens on time.
    const second = await createInvoice(stack, m, { amount: '3', network: 'SOLANA', lifetime_minutes: 5 });
    await advance(stack, 5 * 60 + 1);
    await waitForStatus(stack, m, second.uuid, 'expired');
  });

  it('a payment confirming when the late window ends is followed to the end; a later transfer is unattributed', async () => {
    const inv = await createInvoice(stack, m, { amount: '9', network: 'ARBITRUM', lifetime_minutes: 5 });
    await advance(stack, 5 * 60 + 1);
    await waitForStatus(stack, m, inv.uuid, 'expired');
    const late = await pay(stack, 'ARBITRUM', inv.address, inv.pay_amount);
    await eventually(async () => ((await getInvoice(stack, m, inv.uuid)).payments.length === 1 ? true : undefined));
    expect((await getInvoice(stack, m, inv.uuid)).payments[0]).toMatchObject({ tx_hash: late.tx_hash, status: 'confirming' });

    await advance(stack, 61 * 60); // the late window is over; the payment is still confirming
    await settle();
    const [row] = await query<{ open: boolean }>(stack, 'select open from invoices where uuid = ?', [inv.uuid]);
    expect(row!.open).toBe(true);
    const [address] = await query<{ state: string }>(stack, `select state from deposit_addresses where network = 'ARBITRUM' and address = ?`, [inv.address]);
    expect(address!.state).toBe('allocated');

    // A new transfer reaches the still-open actor after its window: not taken, kept as unattributed.
    const after = await pay(stack, 'ARBITRUM', inv.address, '3');
    const reason = await eventually(async () => (await query<{ reason: string }>(stack, 'select reason from unattributed_deposits where tx_hash = ?', [after.tx_hash]))[0]?.reason);
    expect(reason).toBe('late_window_over');

    // The confirming payment's confirmations still arrive: it is credited, then the actor closes.
    await mine(stack, 'ARBITRUM', inv.required_confirmations);
    const paid: Json = await waitForStatus(stack, m, inv.uuid, 'paid');
    expect(paid).toMatchObject({ paid_late: true, received_amount: inv.pay_amount });
    await eventually(async () => ((await query<{ open: boolean }>(stack, 'select open from invoices where uuid = ?', [inv.uuid]))[0]!.open ? undefined : true));
    await eventually(async () =>
      (await query<{ state: string }>(stack, `select state from deposit_addresses where network = 'ARBITRUM' and address = ?`, [inv.address]))[0]!.state === 'free' ? true : undefined,
    );
    expect(await outboxTypes(inv.uuid)).toEqual(['invoice.expired', 'invoice.paid', 'invoice.paid_late']);
  });

  it('after a network change the invoice takes payments only at its new target; the old address gives unattributed', async () => {
    const inv = await createInvoice(stack, m, { amount: '6', network: 'TRC20' });
    const toTon = await signed(stack, m, 'POST', `/v1/invoices/${inv.uuid}/network`, { network: 'TON' });
    expect(toTon.status).toBe(200);
    const [row] = await query<{ actor_snapshot: { context: { target: unknown } } | string }>(stack, 'select actor_snapshot from invoices where uuid = ?', [inv.uuid]);
    const snapshot = typeof row!.actor_snapshot === 'string' ? JSON.parse(row!.actor_snapshot) : row!.actor_snapshot;
    expect(snapshot.context.target).toEqual({ network: 'TON', address: expect.any(String), memo: toTon.body.memo });

    // To the old network's address: not this invoice's any more.
    const old = await pay(stack, 'TRC20', inv.address, inv.pay_amount);
    await eventually(async () => (await query<{ reason: string }>(stack, 'select reason from unattributed_deposits where tx_hash = ?', [old.tx_hash]))[0]?.reason);
    // To the new target (shared TON address + memo, as the watcher normalizes it): taken.
    await pay(stack, 'TON', toTon.body.address, toTon.body.pay_amount, { memo: toTon.body.memo });
    const seen: Json = await waitForStatus(stack, m, inv.uuid, 'confirming');
    expect(seen.received_amount).toBe(toTon.body.pay_amount);

    // A pool network chosen later: its newly allocated address is the target, and it is paid there.
    const later = await createInvoice(stack, m, { amount: '6' });
    const toBep = await signed(stack, m, 'POST', `/v1/invoices/${later.uuid}/network`, { network: 'BEP20' });
    expect(toBep.status).toBe(200);
    await pay(stack, 'BEP20', toBep.body.address, toBep.body.pay_amount);
    await waitForStatus(stack, m, later.uuid, 'confirming');
  });
});
