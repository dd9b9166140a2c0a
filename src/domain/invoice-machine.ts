/**
 * The invoice actor (XState v5). Pure: no I/O; the rules are applyInvoiceEvent (invoice-step.ts),
 * the top-level states mirror `context.status` (plus the final `closed`), and time comes only from
 * the events' `at` and from `after` timers run on the host's Clock.
 *
 * What the host must do:
 * - Start: createActor(invoiceMachine, { input: createInvoiceContext({...}), clock }).start().
 * - Send watcher observations as TRANSFER_SEEN / CONFIRMATIONS / TRANSFER_REVERTED with
 *   `at: clock.now().toISOString()`. NETWORK_CHANGED is ignored unless canChangeNetwork(context):
 *   check it first and answer 409. A TRANSFER_SEEN the machine did not take (transferRefusal;
 *   the payment is not in the context afterwards) must be recorded as unattributed by the host.
 * - Expiry waits for the chain: when isAwaitingChainTime(context), send CHAIN_TIME with the
 *   watcher's processed chain time once it reaches expires_at.
 * - Persist actor.getPersistedSnapshot() (JSON) with the invoice row after every change; the row
 *   fields are the context's (status, receivedAmount, confirmations, txHash, paidAt, paidLate,
 *   payments). invoiceWebhookEvents(before, after) names the webhooks to write to the outbox.
 * - Restore: createActor(invoiceMachine, { snapshot, clock }).start(), then ALWAYS send
 *   { type: 'RESUME', at: clock.now().toISOString() }, no later than timerDueAt(context). XState
 *   v5 does not persist or re-arm `after` timers (delayed events live only in the running system),
 *   so a restored actor has no timers until RESUME re-enters its state; RESUME also expires /
 *   closes at once what fell due while the daemon was down. An actor whose RESUME would change
 *   nothing yet may get it when timerDueAt comes instead (the host's timer); a transition before
 *   then arms XState's own timer. Deliver the rescan's observations before RESUME so that transfers
 *   made in time are applied before the invoice can expire (DESIGN.md, Actors).
 * - When the actor reaches `closed` (snapshot.status === 'done') the late-payment window is over
 *   and no payment is confirming: stop watching and return the address to the pool. context.status keeps the outcome.
 * - Delays can exceed setTimeout's 2^31−1 ms only with a long lateWindowMs; the Clock must cope
 *   (DaemonClock re-arms long waits).
 */
import { assign, setup } from 'xstate';
import type { InvoiceMachineContext } from './invoice-context';
import type { InvoiceMachineEvent } from './invoice-events';
import { INVOICE_STATUSES, type InvoiceStatus } from './invoice-status';
import { advanceInvoiceTime, applyInvoiceEvent, canClose, lateWindowEndsAt, msUntil } from './invoice-step';

const machineSetup = setup({
  types: {} as {
    context: InvoiceMachineContext;
    events: InvoiceMachineEvent;
    input: InvoiceMachineContext;
  },
  delays: {
    untilExpiry: ({ context }) => msUntil(context, context.expiresAt),
    untilLateWindowEnds: ({ context }) => msUntil(context, lateWindowEndsAt(context)),
  },
  guards: {
    statusIs: ({ context }, params: { status: InvoiceStatus }) => context.status === params.status,
    canClose: ({ context }) => canClose(context),
  },
  actions: {
    apply: assign(({ context, event }) => applyInvoiceEvent(context, event)),
    /** The expiry timer fires at (or after) expires_at. */
    reachExpiry: assign(({ context }) => advanceInvoiceTime(context, context.expiresAt)),
    reachLateWindowEnd: assign(({ context }) => advanceInvoiceTime(context, lateWindowEndsAt(context) ?? context.observedAt)),
  },
});

/** Move the state node to wherever `context.status` now says (no-op when it already matches). */
function routesFrom(current: InvoiceStatus) {
  return INVOICE_STATUSES.filter((s) => s !== current).map((status) => ({
    guard: { type: 'statusIs' as const, params: { status } },
    target: status,
  }));
}

function openState(status: 'pending' | 'confirming' | 'partially_paid') {
  return {
    always: routesFrom(status),
    after: { untilExpiry: { actions: 'reachExpiry' as const } },
    on: { RESUME: { target: status, reenter: true, actions: 'apply' as const } },
  };
}

/** Closes once the late window is over and no payment is confirming (see canClose). */
function endedState(status: 'paid' | 'overpaid' | 'underpaid' | 'expired') {
  return {
    always: [{ guard: 'canClose' as const, target: 'closed' }, ...routesFrom(status)],
    after: { untilLateWindowEnds: { actions: 'reachLateWindowEnd' as const } },
    on: { RESUME: { target: status, reenter: true, actions: 'apply' as const } },
  };
}

export const invoiceMachine = machineSetup.createMachine({
  id: 'invoice',
  context: ({ input }) => input,
  // A context that is not pending (rebuilt from a row) is routed to its state at once.
  initial: 'pending',
  on: {
    TRANSFER_SEEN: { actions: 'apply' },
    CONFIRMATIONS: { actions: 'apply' },
    TRANSFER_REVERTED: { actions: 'apply' },
    CHAIN_TIME: { actions: 'apply' },
    NETWORK_CHANGED: { actions: 'apply' },
  },
  states: {
    pending: openState('pending'),
    confirming: openState('confirming'),
    partially_paid: openState('partially_paid'),
    paid: endedState('paid'),
    overpaid: endedState('overpaid'),
    underpaid: endedState('underpaid'),
    expired: endedState('expired'),
    /** The late-payment window is over; context.status keeps the outcome. */
    closed: { type: 'final' },
  },
});

export type InvoiceMachine = typeof invoiceMachine;
/** State values of the invoice actor: the statuses plus `closed`. */
export type InvoiceStateValue = InvoiceStatus | 'closed';
