// Kept copy of src/domain/invoice-machine.ts before issue 33 (03cc2d8): the reference of the equivalence test.
import { assign, setup } from 'xstate';
import type { InvoiceMachineContext } from '../../src/domain/invoice-context';
import type { InvoiceMachineEvent } from '../../src/domain/invoice-events';
import { INVOICE_STATUSES, type InvoiceStatus } from '../../src/domain/invoice-status';
import { advanceInvoiceTime, applyInvoiceEvent, canClose, lateWindowEndsAt, msUntil } from './legacy-invoice-step';

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
function endedState(status: 'paid' | 'overpaid' | 'underpaid' | 'expired' | 'canceled') {
  return {
    always: [{ guard: 'canClose' as const, target: 'closed' }, ...routesFrom(status)],
    after: { untilLateWindowEnds: { actions: 'reachLateWindowEnd' as const } },
    on: { RESUME: { target: status, reenter: true, actions: 'apply' as const } },
  };
}

export const legacyInvoiceMachine = machineSetup.createMachine({
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
    // The legacy step never cancels (it predates CANCEL); the state exists because every status routes.
    canceled: endedState('canceled'),
    /** The late-payment window is over; context.status keeps the outcome. */
    closed: { type: 'final' },
  },
});
