import { createActor, SimulatedClock } from 'xstate';
import { createInvoiceContext, type DepositTarget, type InvoiceMachineContext } from './invoice-context';
import type { InvoiceMachineEvent } from './invoice-events';
import { invoiceMachine } from './invoice-machine';
import { stepInvoice as applyInvoiceEvent } from '../../test/support/invoice-machine-step';
import { canChangeNetwork, transferRefusal } from './invoice-step';
import { invoiceWebhookEvents } from './invoice-webhooks';

/**
 * The money-safety rules of the invoice machine: nothing is dropped at the end of the late window,
 * "in time" is judged by block time and expiry waits for the watcher's chain time, and a transfer
 * matched before a network change is not counted on the new network.
 */
const MIN = 60_000;
const T0 = Date.parse('2025-03-01T12:00:00.000Z');
const EXPIRES = new Date(T0 + 60 * MIN).toISOString();
const LATE_WINDOW = 60 * MIN;
const iso = (ms: number): string => new Date(ms).toISOString();

function harness(options: { network?: string | null } = {}) {
  const clock = new SimulatedClock();
  clock.set(T0);
  const actor = createActor(invoiceMachine, {
    clock,
    input: createInvoiceContext({
      uuid: 'inv-1',
      payAmount: '100',
      requiredConfirmations: 3,
      expiresAt: EXPIRES,
      now: new Date(T0),
      lateWindowMs: LATE_WINDOW,
      network: options.network === undefined ? 'TRC20' : options.network,
    }),
  });
  actor.start();
  const webhooks: string[] = [];
  let last = actor.getSnapshot().context;
  actor.subscribe((s) => {
    webhooks.push(...invoiceWebhookEvents(last, s.context));
    last = s.context;
  });
  const at = (): string => iso(clock.now());
  return {
    actor,
    webhooks,
    at,
    ctx: (): InvoiceMachineContext => actor.getSnapshot().context,
    value: () => actor.getSnapshot().value,
    done: () => actor.getSnapshot().status === 'done',
    advance: (ms: number) => clock.increment(ms),
    chainTime: (ms: number) => actor.send({ type: 'CHAIN_TIME', chainTime: iso(ms), at: at() }),
    seen: (txHash: string, amount: string, opts: { confirmations?: number; blockTime?: number; to?: DepositTarget } = {}) =>
      actor.send({
        type: 'TRANSFER_SEEN',
        payment: {
          txHash,
          eventIndex: 0,
          from: 'TBuyer',
          amount,
          blockHeight: 100,
          confirmations: opts.confirmations ?? 1,
          ...(opts.blockTime === undefined ? {} : { blockTime: iso(opts.blockTime) }),
        },
        ...(opts.to ? { to: opts.to } : {}),
        at: at(),
      }),
    confirm: (txHash: string, confirmations: number) => actor.send({ type: 'CONFIRMATIONS', key: `${txHash}:0`, confirmations, at: at() }),
    revert: (txHash: string) => actor.send({ type: 'TRANSFER_REVERTED', key: `${txHash}:0`, at: at() }),
  };
}

describe('invoice machine: the late-payment window never drops a payment', () => {
  it('does not close while a late payment is confirming; its confirmations still count; closes once it is final', () => {
    const h = harness();
    h.advance(60 * MIN);
    h.chainTime(T0 + 60 * MIN);
    expect(h.ctx().status).toBe('expired');
    h.advance(50 * MIN);
    h.seen('0xlate', '100', { confirmations: 1 });
    expect(h.ctx().payments).toEqual([expect.objectContaining({ key: '0xlate:0', state: 'confirming', late: true })]);
    h.advance(20 * MIN); // the window is over, the payment still confirming
    expect(h.done()).toBe(false);
    expect(h.value()).toBe('expired');
    h.confirm('0xlate', 3);
    expect(h.ctx()).toMatchObject({ status: 'paid', paidLate: true, receivedAmount: '100' });
    expect(h.done()).toBe(true);
    expect(h.webhooks).toEqual(['invoice.expired', 'invoice.paid', 'invoice.paid_late']);
  });

  it('closes once the confirming payment is reverted after the window', () => {
    const h = harness();
    h.advance(60 * MIN);
    h.chainTime(T0 + 60 * MIN);
    h.advance(30 * MIN);
    h.seen('0xlate', '100', { confirmations: 1 });
    h.advance(40 * MIN);
    expect(h.done()).toBe(false);
    h.revert('0xlate');
    expect(h.done()).toBe(true);
    expect(h.ctx().status).toBe('expired');
  });

  it('after the window a new transfer is not taken and says why (the host records it as unattributed)', () => {
    const h = harness();
    h.advance(60 * MIN);
    h.chainTime(T0 + 60 * MIN);
    h.advance(30 * MIN);
    h.seen('0xlate', '100', { confirmations: 1 }); // keeps the actor open past the window
    h.advance(40 * MIN);
    const event: InvoiceMachineEvent = { type: 'TRANSFER_SEEN', payment: { txHash: '0xafter', eventIndex: 0, from: 'TBuyer', amount: '5', blockHeight: 200, confirmations: 1 }, at: h.at() };
    h.actor.send(event);
    expect(h.ctx().payments.map((p) => p.key)).toEqual(['0xlate:0']);
    expect(transferRefusal(h.ctx(), event)).toBe('late_window_over');
    // The payment it follows is still refreshed, never refused.
    expect(transferRefusal(h.ctx(), { ...event, payment: { ...event.payment, txHash: '0xlate', blockHeight: 100 } })).toBeNull();
  });
});

describe('invoice machine: in time is judged by block time; expiry waits for the chain', () => {
  it('past expires_at it waits until the watcher processed the chain that far, then expires', () => {
    const h = harness();
    h.advance(61 * MIN);
    expect(h.ctx()).toMatchObject({ status: 'pending', expired: false });
    h.chainTime(T0 + 59 * MIN);
    expect(h.ctx().status).toBe('pending');
    expect(canChangeNetwork(h.ctx())).toBe(false); // past expires_at: no network change while it waits
    h.chainTime(T0 + 60 * MIN);
    expect(h.ctx()).toMatchObject({ status: 'expired', expired: true, endedAt: EXPIRES });
    expect(h.webhooks).toEqual(['invoice.expired']);
  });

  it('an invoice without a network expires on the clock alone', () => {
    const h = harness({ network: null });
    h.advance(60 * MIN);
    expect(h.ctx().status).toBe('expired');
  });

  it('a payment mined before expires_at but applied after it is in time: paid, not expired, not late', () => {
    const h = harness();
    h.advance(90 * MIN); // the watcher was paused: the clock passed expires_at
    h.seen('0xaa', '100', { confirmations: 1, blockTime: T0 + 50 * MIN });
    expect(h.ctx().payments[0]).toMatchObject({ late: false, state: 'confirming' });
    h.chainTime(T0 + 90 * MIN); // caught up
    expect(h.ctx().status).toBe('confirming');
    h.confirm('0xaa', 3);
    expect(h.ctx()).toMatchObject({ status: 'paid', paidLate: false });
    expect(h.webhooks).toEqual(['invoice.confirming', 'invoice.paid']);
  });

  it('a payment mined at or after expires_at expires a waiting invoice first and is late', () => {
    const h = harness();
    h.advance(90 * MIN);
    h.seen('0xbb', '100', { confirmations: 1, blockTime: T0 + 70 * MIN });
    expect(h.ctx()).toMatchObject({ status: 'expired' });
    expect(h.ctx().payments[0]).toMatchObject({ late: true });
    h.confirm('0xbb', 3);
    expect(h.ctx()).toMatchObject({ status: 'paid', paidLate: true });
  });

  it('uses the earlier of block time and now: a block stamped ahead of our clock is still in time', () => {
    const h = harness();
    h.advance(30 * MIN);
    h.seen('0xcc', '100', { confirmations: 3, blockTime: T0 + 120 * MIN });
    expect(h.ctx()).toMatchObject({ status: 'paid', paidLate: false });
  });
});

describe('invoice machine: a transfer matched before a network change', () => {
  const ton: DepositTarget = { network: 'TON', address: 'eqshared', memo: 'MEMO123456' };
  const changed = (ctx: InvoiceMachineContext): InvoiceMachineContext =>
    applyInvoiceEvent(ctx, { type: 'NETWORK_CHANGED', payAmount: '101', requiredConfirmations: 3, target: ton, at: iso(T0 + MIN) });
  const seenAt = (to: DepositTarget): InvoiceMachineEvent => ({
    type: 'TRANSFER_SEEN',
    payment: { txHash: '0xdd', eventIndex: 0, from: 'x', amount: '101', blockHeight: 5, confirmations: 1 },
    to,
    at: iso(T0 + 2 * MIN),
  });
  const start = (): InvoiceMachineContext => createInvoiceContext({ uuid: 'inv-2', payAmount: '100', requiredConfirmations: 19, expiresAt: EXPIRES, now: new Date(T0), network: 'TRC20' });

  it('is not counted on the new network: a transfer to the old network or address is refused', () => {
    const ctx = changed(start());
    expect(ctx.target).toEqual(ton);
    const old = seenAt({ network: 'TRC20', address: 'told', memo: null });
    expect(transferRefusal(ctx, old as Extract<InvoiceMachineEvent, { type: 'TRANSFER_SEEN' }>)).toBe('target_changed');
    const after = applyInvoiceEvent(ctx, old);
    expect(after).toMatchObject({ status: 'pending', receivedAmount: '0', payments: [] });
  });

  it('on a memo network the memo must match too; the right target is taken', () => {
    const ctx = changed(start());
    expect(applyInvoiceEvent(ctx, seenAt({ ...ton, memo: 'OTHERMEMO1' })).payments).toEqual([]);
    expect(applyInvoiceEvent(ctx, seenAt(ton))).toMatchObject({ status: 'confirming', receivedAmount: '101' });
  });

  it('a refused network change keeps the old target', () => {
    const paid = applyInvoiceEvent(changed(start()), seenAt(ton));
    const again = applyInvoiceEvent(paid, { type: 'NETWORK_CHANGED', payAmount: '100', requiredConfirmations: 19, target: { network: 'TRC20', address: 'tnew', memo: null }, at: iso(T0 + 3 * MIN) });
    expect(again.target).toEqual(ton);
  });
});
