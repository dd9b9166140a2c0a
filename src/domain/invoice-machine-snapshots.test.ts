import { createActor, SimulatedClock, type Snapshot } from 'xstate';
import { legacyInvoiceMachine } from '../../test/support/legacy-invoice-machine';
import { createInvoiceContext, type InvoiceMachineContext } from './invoice-context';
import { AWAITING_CHAIN_TAG, INVOICE_EDGES, invoiceMachine, invoiceStateOf } from './invoice-machine';
import { INVOICE_STATUSES } from './invoice-status';

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const EXPIRES = new Date(T0 + 30 * MIN).toISOString();

function context(network: string | null): InvoiceMachineContext {
  return createInvoiceContext({ uuid: 'inv-old', payAmount: '100', requiredConfirmations: 3, expiresAt: EXPIRES, now: new Date(T0), lateWindowMs: 60 * MIN, network });
}

/** A snapshot as the daemon before issue 33 persisted it (its machine is kept in test/support), as JSON. */
function oldSnapshot(ctx: InvoiceMachineContext, events: Array<Parameters<ReturnType<typeof createActor<typeof legacyInvoiceMachine>>['send']>[0]> = []): Snapshot<unknown> {
  const clock = new SimulatedClock();
  clock.set(T0);
  const actor = createActor(legacyInvoiceMachine, { input: ctx, clock }).start();
  for (const e of events) actor.send(e);
  const json = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as Snapshot<unknown> & { value: unknown; context: Record<string, unknown> };
  actor.stop();
  return json;
}

function restore(snapshot: Snapshot<unknown>, now: number) {
  const clock = new SimulatedClock();
  clock.set(now);
  const actor = createActor(invoiceMachine, { snapshot, clock, input: undefined as never }).start();
  return { actor, clock };
}

describe('snapshots persisted before the machine said the invoice life', () => {
  it('an old `pending` (atomic state, no chainTime) restores, takes RESUME and expires on its timer', () => {
    const ctx = context(null);
    const { chainTime: _drop, ...withoutChainTime } = ctx;
    const saved = oldSnapshot(withoutChainTime as InvoiceMachineContext) as Snapshot<unknown> & { value: unknown; context: Record<string, unknown> };
    expect(saved.value).toBe('pending');
    expect('chainTime' in saved.context).toBe(false);

    const { actor, clock } = restore(saved, T0 + 10 * MIN);
    expect(invoiceStateOf(actor.getSnapshot().value)).toBe('pending');
    expect(actor.getSnapshot().value).toEqual({ pending: 'running' });
    actor.send({ type: 'RESUME', at: new Date(clock.now()).toISOString() });
    clock.increment(20 * MIN - 1);
    expect(actor.getSnapshot().context.status).toBe('pending');
    clock.increment(1);
    expect(actor.getSnapshot().context).toMatchObject({ status: 'expired', endedAt: EXPIRES, expired: true });
    expect(invoiceStateOf(actor.getSnapshot().value)).toBe('expired');
    clock.increment(60 * MIN);
    expect(actor.getSnapshot().status).toBe('done');
  });

  it("an old open snapshot with a network and the migration's chainTime waits for the chain before it expires", () => {
    const saved = oldSnapshot(context('POLYGON')) as Snapshot<unknown> & { context: Record<string, unknown> };
    // What 20261128000000-invoice-snapshot-chain-time writes: chainTime = observedAt.
    saved.context.chainTime = saved.context.observedAt;
    const { actor, clock } = restore(saved, T0 + 40 * MIN); // down over expires_at
    actor.send({ type: 'RESUME', at: new Date(clock.now()).toISOString() });
    expect(actor.getSnapshot().context.status).toBe('pending');
    expect(actor.getSnapshot().hasTag(AWAITING_CHAIN_TAG)).toBe(true);
    actor.send({ type: 'CHAIN_TIME', chainTime: EXPIRES, at: new Date(clock.now()).toISOString() });
    expect(actor.getSnapshot().context).toMatchObject({ status: 'expired', endedAt: EXPIRES });
    expect(actor.getSnapshot().hasTag(AWAITING_CHAIN_TAG)).toBe(false);
  });

  it('old ended and paid snapshots restore into their status and still close', () => {
    const at = (ms: number) => new Date(T0 + ms).toISOString();
    const payment = { txHash: '0x1', eventIndex: 0, from: 'f', amount: '100', blockHeight: 5, confirmations: 3 };
    const saved = oldSnapshot(context(null), [{ type: 'TRANSFER_SEEN', payment, at: at(MIN) }]) as Snapshot<unknown> & { value: unknown };
    expect(saved.value).toBe('paid');
    const { actor, clock } = restore(saved, T0 + 2 * MIN);
    expect(actor.getSnapshot().value).toBe('paid');
    actor.send({ type: 'RESUME', at: new Date(clock.now()).toISOString() });
    clock.increment(60 * MIN);
    expect(actor.getSnapshot().status).toBe('done');
    expect(actor.getSnapshot().context.status).toBe('paid');
  });

  it('every state is a DESIGN status or closed (plus the transient start), and every edge leads to a status', () => {
    const states = Object.keys(invoiceMachine.root.states).sort();
    expect(states).toEqual([...INVOICE_STATUSES, 'closed', 'created'].sort());
    for (const status of INVOICE_STATUSES) {
      for (const to of INVOICE_EDGES[status]) expect(INVOICE_STATUSES).toContain(to);
      expect(INVOICE_EDGES[status]).not.toContain(status);
    }
    // Outcomes only move up.
    expect(INVOICE_EDGES.overpaid).toEqual([]);
    expect(INVOICE_EDGES.paid).toEqual(['overpaid']);
  });
});
