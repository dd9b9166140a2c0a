import { createActor, SimulatedClock } from 'xstate';
import { createInvoiceContext } from './invoice-context';
import { invoiceMachine, invoiceStateOf } from './invoice-machine';
import { invoiceWebhookEvents } from './invoice-webhooks';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = Date.parse('2025-03-01T12:00:00.000Z');

function harness() {
  const clock = new SimulatedClock();
  clock.set(T0);
  const actor = createActor(invoiceMachine, {
    clock,
    input: createInvoiceContext({ uuid: 'inv-c', payAmount: '100', requiredConfirmations: 3, expiresAt: new Date(T0 + HOUR), now: new Date(T0), network: 'tron' }),
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
    ctx: () => actor.getSnapshot().context,
    value: () => invoiceStateOf(actor.getSnapshot().value),
    cancel: () => actor.send({ type: 'CANCEL', at: at() }),
    seen: (txHash: string, amount: string, confirmations = 0) =>
      actor.send({ type: 'TRANSFER_SEEN', payment: { txHash, eventIndex: 0, from: 'TBuyer', amount, blockHeight: 100, confirmations, blockTime: at() }, at: at() }),
    confirm: (txHash: string, confirmations: number) => actor.send({ type: 'CONFIRMATIONS', key: `${txHash}:0`, confirmations, at: at() }),
  };
}

describe('invoice machine: cancel', () => {
  it('a pending, empty invoice cancels: terminal, one invoice.canceled event', () => {
    const h = harness();
    h.clock.increment(5 * MIN);
    h.cancel();
    expect(h.value()).toBe('canceled');
    expect(h.ctx()).toMatchObject({ status: 'canceled', endedAt: new Date(T0 + 5 * MIN).toISOString(), paidAt: null, paidLate: false });
    h.cancel();
    expect(h.webhooks).toEqual(['invoice.canceled']);
  });

  it('is not taken once money was seen', () => {
    const h = harness();
    h.seen('0xaa', '10', 1);
    h.cancel();
    expect(h.value()).toBe('confirming');
  });

  it('is not taken at or after expires_at (the invoice expires instead)', () => {
    const h = harness();
    h.actor.send({ type: 'CHAIN_TIME', chainTime: new Date(T0 + HOUR).toISOString(), at: new Date(T0).toISOString() });
    h.clock.increment(HOUR);
    h.cancel();
    expect(h.value()).toBe('expired');
  });

  it('late money after a cancel is recorded and moves it like an expired invoice (paid_late)', () => {
    const h = harness();
    h.cancel();
    h.clock.increment(MIN);
    h.seen('0xlate', '100', 1);
    expect(h.ctx()).toMatchObject({ status: 'canceled', receivedAmount: '100' });
    expect(h.ctx().payments[0]?.late).toBe(true);
    h.confirm('0xlate', 3);
    expect(h.ctx()).toMatchObject({ status: 'paid', paidLate: true });
    expect(h.webhooks).toEqual(['invoice.canceled', 'invoice.paid', 'invoice.paid_late']);
  });

  it('closes after the late window and restores into canceled', () => {
    const h = harness();
    h.cancel();
    const restored = createActor(invoiceMachine, { snapshot: h.actor.getPersistedSnapshot(), clock: h.clock, input: undefined as never }).start();
    expect(invoiceStateOf(restored.getSnapshot().value)).toBe('canceled');
    h.clock.increment(25 * HOUR);
    expect(h.actor.getSnapshot().status).toBe('done');
    expect(h.ctx().status).toBe('canceled');
  });
});
