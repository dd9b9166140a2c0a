import { createActor, SimulatedClock, type Snapshot } from 'xstate';
import { createInvoiceContext, type InvoiceMachineContext } from './invoice-context';
import { invoiceMachine, invoiceStateOf } from './invoice-machine';
import { invoiceWebhookEvents } from './invoice-webhooks';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = Date.parse('2025-03-01T12:00:00.000Z');
const EXPIRES = new Date(T0 + 60 * MIN).toISOString();

function harness(options: { payAmount?: string; tolerance?: string; snapshot?: Snapshot<unknown>; clock?: SimulatedClock } = {}) {
  const clock = options.clock ?? new SimulatedClock();
  if (!options.clock) clock.set(T0);
  const actor = options.snapshot
    ? // XState's types want `input` whenever the machine takes one; a snapshot makes it unused.
      createActor(invoiceMachine, { snapshot: options.snapshot, clock, input: undefined as never })
    : createActor(invoiceMachine, {
        clock,
        input: createInvoiceContext({
          uuid: 'inv-1',
          payAmount: options.payAmount ?? '100',
          requiredConfirmations: 3,
          expiresAt: EXPIRES,
          now: new Date(T0),
          underpaymentTolerance: options.tolerance,
        }),
      });
  actor.start();
  const at = () => new Date(clock.now()).toISOString();
  const webhooks: string[] = [];
  let last = actor.getSnapshot().context;
  actor.subscribe((s) => {
    webhooks.push(...invoiceWebhookEvents(last, s.context));
    last = s.context;
  });
  return {
    clock,
    actor,
    webhooks,
    at,
    ctx: (): InvoiceMachineContext => actor.getSnapshot().context,
    value: () => invoiceStateOf(actor.getSnapshot().value),
    seen: (txHash: string, amount: string, confirmations = 0, eventIndex = 0) =>
      actor.send({ type: 'TRANSFER_SEEN', payment: { txHash, eventIndex, from: 'TBuyer', amount, blockHeight: 100, confirmations }, at: at() }),
    confirm: (txHash: string, confirmations: number, eventIndex = 0) => actor.send({ type: 'CONFIRMATIONS', key: `${txHash}:${eventIndex}`, confirmations, at: at() }),
    revert: (txHash: string, eventIndex = 0) => actor.send({ type: 'TRANSFER_REVERTED', key: `${txHash}:${eventIndex}`, at: at() }),
    advance: (ms: number) => clock.increment(ms),
  };
}

describe('invoice machine: before expiry', () => {
  it('exact payment: pending -> confirming -> paid', () => {
    const h = harness();
    expect(h.value()).toBe('pending');
    h.advance(5 * MIN);
    h.seen('0xaa', '100', 1);
    expect(h.value()).toBe('confirming');
    expect(h.ctx()).toMatchObject({ status: 'confirming', receivedAmount: '100', confirmations: 1, txHash: '0xaa', paidAt: null });
    h.confirm('0xaa', 2);
    expect(h.ctx()).toMatchObject({ status: 'confirming', confirmations: 2 });
    h.advance(MIN);
    h.confirm('0xaa', 3);
    const paidAt = new Date(T0 + 6 * MIN).toISOString();
    expect(h.value()).toBe('paid');
    expect(h.ctx()).toMatchObject({ status: 'paid', confirmations: 3, paidAt, endedAt: paidAt, paidLate: false });
    expect(h.ctx().payments).toEqual([
      {
        key: '0xaa:0',
        txHash: '0xaa',
        eventIndex: 0,
        from: 'TBuyer',
        amount: '100',
        blockHeight: 100,
        confirmations: 3,
        state: 'confirmed',
        seenAt: new Date(T0 + 5 * MIN).toISOString(),
        late: false,
      },
    ]);
    // confirmations keep counting on the payment but the invoice shows at most the required ones
    h.confirm('0xaa', 9);
    expect(h.ctx().confirmations).toBe(3);
    expect(h.webhooks).toEqual(['invoice.confirming', 'invoice.paid']);
  });

  it('two partial payments add up to paid', () => {
    const h = harness();
    h.seen('0x01', '60', 3);
    expect(h.ctx()).toMatchObject({ status: 'partially_paid', receivedAmount: '60', confirmations: 3 });
    h.seen('0x02', '40', 0);
    expect(h.ctx()).toMatchObject({ status: 'confirming', receivedAmount: '100', confirmations: 0, txHash: '0x01' });
    h.confirm('0x02', 3);
    expect(h.value()).toBe('paid');
    expect(h.webhooks).toEqual(['invoice.partially_paid', 'invoice.confirming', 'invoice.paid']);
  });

  it('several transfers in one transaction are separate payments', () => {
    const h = harness();
    h.seen('0x01', '50', 3, 0);
    h.seen('0x01', '50', 3, 1);
    expect(h.ctx()).toMatchObject({ status: 'paid', receivedAmount: '100' });
  });

  it('overpaid', () => {
    const h = harness();
    h.seen('0x01', '100.000001', 0);
    h.confirm('0x01', 3);
    expect(h.ctx()).toMatchObject({ status: 'overpaid', receivedAmount: '100.000001' });
    expect(h.ctx().paidAt).not.toBeNull();
  });

  it('counts a repeated observation once and only refreshes its confirmations', () => {
    const h = harness();
    h.seen('0x01', '60', 1);
    h.seen('0x01', '60', 2);
    expect(h.ctx()).toMatchObject({ status: 'confirming', receivedAmount: '60', confirmations: 2 });
    expect(h.ctx().payments).toHaveLength(1);
    h.seen('0x01', '60', 3);
    h.seen('0x01', '60', 4);
    expect(h.ctx()).toMatchObject({ status: 'partially_paid', receivedAmount: '60' });
  });

  it('within the underpayment tolerance counts as paid', () => {
    const h = harness({ tolerance: '0.5' });
    h.seen('0x01', '99.5', 3);
    expect(h.ctx().status).toBe('paid');
  });

  it('a revert before finality rolls back to the status the rest gives', () => {
    const h = harness();
    h.seen('0x01', '100', 1);
    expect(h.value()).toBe('confirming');
    h.revert('0x01');
    expect(h.value()).toBe('pending');
    expect(h.ctx()).toMatchObject({ status: 'pending', receivedAmount: '0', confirmations: 0, txHash: null });
    expect(h.ctx().payments[0]!.state).toBe('reverted');

    h.seen('0x02', '30', 3);
    h.seen('0x03', '70', 1);
    expect(h.value()).toBe('confirming');
    h.revert('0x03');
    expect(h.ctx()).toMatchObject({ status: 'partially_paid', receivedAmount: '30', txHash: '0x02' });
    // a final payment is never removed
    h.revert('0x02');
    expect(h.ctx()).toMatchObject({ status: 'partially_paid', receivedAmount: '30' });
    // seen again on the new branch: it comes back (still counted once)
    h.seen('0x03', '70', 3);
    expect(h.ctx()).toMatchObject({ status: 'paid', receivedAmount: '100' });
    expect(h.webhooks).toEqual(['invoice.confirming', 'invoice.reverted', 'invoice.partially_paid', 'invoice.confirming', 'invoice.reverted', 'invoice.partially_paid', 'invoice.paid']);
  });

  it('a revert of the first payment moves tx_hash to the next live one', () => {
    const h = harness();
    h.seen('0x01', '10', 0);
    h.seen('0x02', '10', 0);
    h.revert('0x01');
    expect(h.ctx().txHash).toBe('0x02');
  });

  it('takes a network change only while pending with nothing received', () => {
    const h = harness();
    h.actor.send({ type: 'NETWORK_CHANGED', payAmount: '101.000000000000000001', requiredConfirmations: 15 });
    expect(h.ctx()).toMatchObject({ payAmount: '101.000000000000000001', requiredConfirmations: 15, status: 'pending' });
    h.seen('0x01', '1', 0);
    h.actor.send({ type: 'NETWORK_CHANGED', payAmount: '5', requiredConfirmations: 1 });
    expect(h.ctx()).toMatchObject({ payAmount: '101.000000000000000001', requiredConfirmations: 15 });
  });
});

describe('invoice machine: expiry and late payments', () => {
  it('expires with nothing received, then closes after the late window', () => {
    const h = harness();
    h.advance(60 * MIN - 1);
    expect(h.value()).toBe('pending');
    h.advance(1);
    expect(h.value()).toBe('expired');
    expect(h.ctx()).toMatchObject({ status: 'expired', expired: true, endedAt: EXPIRES, paidAt: null });
    h.advance(24 * HOUR - 1);
    expect(h.value()).toBe('expired');
    h.advance(1);
    expect(h.value()).toBe('closed');
    expect(h.actor.getSnapshot().status).toBe('done');
    expect(h.ctx().status).toBe('expired');
    expect(h.webhooks).toEqual(['invoice.expired']);
  });

  it('partially paid at expiry becomes underpaid', () => {
    const h = harness();
    h.seen('0x01', '60', 3);
    h.advance(2 * HOUR);
    expect(h.ctx()).toMatchObject({ status: 'underpaid', receivedAmount: '60', endedAt: EXPIRES });
  });

  it('a payment still confirming at expiry was sent in time: it decides when it confirms', () => {
    const h = harness();
    h.seen('0x01', '100', 1);
    h.advance(61 * MIN);
    expect(h.ctx()).toMatchObject({ status: 'confirming', expired: true });
    h.confirm('0x01', 3);
    expect(h.ctx()).toMatchObject({ status: 'paid', paidLate: false, paidAt: new Date(T0 + 61 * MIN).toISOString() });
  });

  it('a confirming payment that falls short at expiry ends underpaid', () => {
    const h = harness();
    h.seen('0x01', '60', 1);
    h.advance(61 * MIN);
    expect(h.value()).toBe('confirming');
    h.confirm('0x01', 3);
    expect(h.value()).toBe('underpaid');
  });

  it('a confirming payment reverted after expiry ends expired', () => {
    const h = harness();
    h.seen('0x01', '100', 1);
    h.advance(61 * MIN);
    h.revert('0x01');
    expect(h.ctx()).toMatchObject({ status: 'expired', endedAt: new Date(T0 + 61 * MIN).toISOString() });
  });

  it('a late payment after expiry is credited: expired -> paid with paid_late', () => {
    const h = harness();
    h.advance(2 * HOUR);
    expect(h.value()).toBe('expired');
    h.seen('0xlate', '100', 1);
    expect(h.ctx()).toMatchObject({ status: 'expired', receivedAmount: '100', txHash: '0xlate', paidLate: false });
    expect(h.ctx().payments[0]!.late).toBe(true);
    h.confirm('0xlate', 3);
    expect(h.value()).toBe('paid');
    expect(h.ctx()).toMatchObject({ status: 'paid', paidLate: true, paidAt: new Date(T0 + 2 * HOUR).toISOString(), endedAt: EXPIRES });
    expect(h.webhooks).toEqual(['invoice.expired', 'invoice.paid', 'invoice.paid_late']);
    // the window still runs from the original end
    h.advance(23 * HOUR);
    expect(h.value()).toBe('closed');
    expect(h.ctx().status).toBe('paid');
  });

  it('late money tops an underpaid invoice up to paid', () => {
    const h = harness();
    h.seen('0x01', '60', 3);
    h.advance(61 * MIN);
    h.seen('0x02', '40', 3);
    expect(h.ctx()).toMatchObject({ status: 'paid', paidLate: true });
  });

  it('a payment after paid (even before expires_at) is late and moves it to overpaid', () => {
    const h = harness();
    h.seen('0x01', '100', 3);
    h.seen('0x02', '5', 1);
    expect(h.ctx()).toMatchObject({ status: 'paid', receivedAmount: '105' });
    h.confirm('0x02', 3);
    expect(h.ctx()).toMatchObject({ status: 'overpaid', paidLate: true });
    expect(h.webhooks).toEqual(['invoice.paid', 'invoice.overpaid', 'invoice.paid_late']);
  });

  it('a late payment that is reverted changes nothing', () => {
    const h = harness();
    h.advance(2 * HOUR);
    h.seen('0xlate', '100', 1);
    h.revert('0xlate');
    expect(h.ctx()).toMatchObject({ status: 'expired', receivedAmount: '0', paidLate: false });
  });

  it('an observation stamped at or after expires_at expires the invoice first', () => {
    const h = harness();
    // the host's clock passed expires_at but the timer has not run yet
    h.actor.send({ type: 'TRANSFER_SEEN', payment: { txHash: '0x01', eventIndex: 0, from: 'x', amount: '100', blockHeight: 1, confirmations: 3 }, at: EXPIRES });
    expect(h.ctx()).toMatchObject({ status: 'paid', paidLate: true, endedAt: EXPIRES });
  });

  it('nothing is credited after the late window closed', () => {
    const h = harness();
    h.seen('0x01', '100', 3);
    h.advance(24 * HOUR);
    expect(h.value()).toBe('closed');
    h.seen('0x02', '1', 3);
    expect(h.ctx().receivedAmount).toBe('100');
  });
});

describe('invoice machine: persistence', () => {
  function persist(actor: { getPersistedSnapshot(): unknown }): Snapshot<unknown> {
    return JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as Snapshot<unknown>;
  }

  it('restores from JSON and expires after RESUME re-arms the timer', () => {
    const h = harness();
    h.advance(10 * MIN);
    h.seen('0x01', '60', 3);
    const saved = persist(h.actor);
    h.actor.stop();

    const clock = new SimulatedClock();
    clock.set(T0 + 20 * MIN); // the daemon came back 10 minutes later
    const r = harness({ snapshot: saved, clock });
    expect(r.value()).toBe('partially_paid');
    expect(r.ctx().payments).toHaveLength(1);
    r.actor.send({ type: 'RESUME', at: r.at() });
    r.advance(40 * MIN - 1);
    expect(r.value()).toBe('partially_paid');
    r.advance(1);
    expect(r.ctx()).toMatchObject({ status: 'underpaid', endedAt: EXPIRES });
    r.advance(24 * HOUR);
    expect(r.value()).toBe('closed');
  });

  it('has no timers after a restore until RESUME (XState does not persist delayed events)', () => {
    const h = harness();
    const saved = persist(h.actor);
    h.actor.stop();
    const clock = new SimulatedClock();
    clock.set(T0);
    const r = harness({ snapshot: saved, clock });
    r.advance(2 * HOUR);
    expect(r.value()).toBe('pending');
    r.actor.send({ type: 'RESUME', at: r.at() });
    expect(r.ctx()).toMatchObject({ status: 'expired', endedAt: EXPIRES });
  });

  it('RESUME after a long downtime closes at once what fell due', () => {
    const h = harness();
    h.seen('0x01', '100', 3);
    const saved = persist(h.actor);
    h.actor.stop();
    const clock = new SimulatedClock();
    clock.set(T0 + 30 * HOUR);
    const r = harness({ snapshot: saved, clock });
    r.actor.send({ type: 'RESUME', at: r.at() });
    expect(r.value()).toBe('closed');
    expect(r.ctx().status).toBe('paid');
  });

  it('restores a late-payment state and still confirms it', () => {
    const h = harness();
    h.advance(2 * HOUR);
    h.seen('0xlate', '100', 1);
    const saved = persist(h.actor);
    h.actor.stop();
    const clock = new SimulatedClock();
    clock.set(T0 + 3 * HOUR);
    const r = harness({ snapshot: saved, clock });
    r.actor.send({ type: 'RESUME', at: r.at() });
    expect(r.value()).toBe('expired');
    r.confirm('0xlate', 3);
    expect(r.ctx()).toMatchObject({ status: 'paid', paidLate: true });
    r.advance(22 * HOUR - 1);
    expect(r.value()).toBe('paid');
    r.advance(1);
    expect(r.value()).toBe('closed');
  });

  it('a context rebuilt without a snapshot is routed to its state', () => {
    const h = harness();
    h.seen('0x01', '100', 3);
    const context = JSON.parse(JSON.stringify(h.ctx())) as InvoiceMachineContext;
    const clock = new SimulatedClock();
    clock.set(T0);
    const actor = createActor(invoiceMachine, { input: context, clock }).start();
    expect(invoiceStateOf(actor.getSnapshot().value)).toBe('paid');
  });
});
