/**
 * The invoice actor (XState v5). Pure: no I/O. Its states are the statuses of DESIGN.md ("Invoice
 * statuses") plus the final `closed`; each state's entry takes its status into the context (as the
 * withdrawal machine does), and a state is left only along the edges DESIGN allows, guarded by
 * the pure rules of invoice-step.ts / invoice-status.ts (deriveStatus, canClose, isExpiryDue,
 * transferRefusal, canChangeNetwork). Time comes only from the events' `at` and from `after`
 * delays run on the host's Clock: expiry (open states) and the end of the late-payment window
 * (ended states), both computed from the context's deadlines.
 *
 * What the host must do:
 * - Start: createActor(invoiceMachine, { input: createInvoiceContext({...}), clock }).start().
 * - Send watcher observations as TRANSFER_SEEN / CONFIRMATIONS / TRANSFER_REVERTED with
 *   `at: clock.now().toISOString()`. NETWORK_CHANGED is taken only in `pending` when
 *   canChangeNetwork: check it first and answer 409. CANCEL likewise, only in `pending` when canCancel. A TRANSFER_SEEN the machine does not take is
 *   announced as an emitted `transfer.refused` { key, reason } (actor.on): record it as unattributed.
 * - Expiry waits for the chain: an open state past expires_at whose watcher has not processed the
 *   chain that far sits in its `awaitingChain` substate (tag `awaitingChain`); send CHAIN_TIME
 *   with the watcher's processed chain time once it reaches expires_at.
 * - Persist actor.getPersistedSnapshot() (JSON) with the invoice row after every change; the row
 *   fields are the context's (status, receivedAmount, confirmations, txHash, paidAt, paidLate,
 *   payments). invoiceWebhookEvents(before, after) names the webhooks to write to the outbox.
 * - Restore: createActor(invoiceMachine, { snapshot, clock }).start(), then ALWAYS send
 *   { type: 'RESUME', at: clock.now().toISOString() }. XState v5 does not persist `after` timers,
 *   so a restored actor has none until RESUME re-enters its state; RESUME also expires / closes at
 *   once what fell due while the daemon was down. Deliver the rescan's observations before RESUME
 *   so that transfers made in time are applied before the invoice can expire (DESIGN.md, Actors).
 *   Snapshots written before the open states had substates (value `pending`) restore into their
 *   `running` substate.
 * - When the actor reaches `closed` (snapshot.status === 'done') the late-payment window is over
 *   and no payment is confirming: stop watching and return the address to the pool. context.status keeps the outcome.
 * - Delays can exceed setTimeout's 2^31−1 ms only with a long lateWindowMs; the Clock must cope
 *   (DaemonClock re-arms long waits).
 */
import { assign, emit, setup } from 'xstate';
import type { InvoiceMachineContext } from './invoice-context';
import type { InvoiceMachineEvent } from './invoice-events';
import { paymentKey } from './invoice-payment';
import type { InvoiceStatus } from './invoice-status';
import {
  advanceInvoiceTime,
  canClose,
  cancelAllowed,
  chainPassedExpiry,
  changeNetwork,
  derivedStatus,
  enterStatus,
  eventTime,
  isAwaitingChainTime,
  lateWindowEndsAt,
  msUntil,
  networkChangeAllowed,
  observeChainTime,
  observeConfirmations,
  observeRevert,
  observeTransfer,
  refusalOf,
  transferRefusal,
  type TransferRefusal,
} from './invoice-step';

/** Emitted when a TRANSFER_SEEN is not taken: the host records the transfer as unattributed. */
export interface TransferRefusedEmitted {
  readonly type: 'transfer.refused';
  readonly key: string;
  readonly reason: TransferRefusal;
}

/** The tag of an open state that is past expires_at and waits for its watcher's chain time. */
export const AWAITING_CHAIN_TAG = 'awaitingChain';

/**
 * The status edges DESIGN.md allows (outcomes only move up; confirmed money is never removed, so
 * partially_paid never goes back to pending or expired). The machine takes the first edge whose
 * status deriveStatus names.
 */
export const INVOICE_EDGES: Readonly<Record<InvoiceStatus, readonly InvoiceStatus[]>> = {
  pending: ['confirming', 'partially_paid', 'paid', 'overpaid', 'underpaid', 'expired'],
  confirming: ['pending', 'partially_paid', 'paid', 'overpaid', 'underpaid', 'expired'],
  partially_paid: ['confirming', 'paid', 'overpaid', 'underpaid'],
  expired: ['underpaid', 'paid', 'overpaid'],
  // Entered only by CANCEL from pending (no derived edge leads here); late money moves it like expired.
  canceled: ['underpaid', 'paid', 'overpaid'],
  underpaid: ['paid', 'overpaid'],
  paid: ['overpaid'],
  overpaid: [],
};

type TransferSeenEvent = Extract<InvoiceMachineEvent, { type: 'TRANSFER_SEEN' }>;

/** The context as the event's time left it, before the observation: what refusals are judged on. */
function ticked(context: InvoiceMachineContext, event: { readonly at?: string }): InvoiceMachineContext {
  return advanceInvoiceTime(context, eventTime(context, event));
}

const machineSetup = setup({
  types: {} as {
    context: InvoiceMachineContext;
    events: InvoiceMachineEvent;
    input: InvoiceMachineContext;
    emitted: TransferRefusedEmitted;
  },
  delays: {
    untilExpiry: ({ context }) => msUntil(context, context.expiresAt),
    untilLateWindowEnds: ({ context }) => msUntil(context, lateWindowEndsAt(context)),
  },
  guards: {
    derives: ({ context }, params: { status: InvoiceStatus }) => derivedStatus(context) === params.status,
    canClose: ({ context }) => canClose(context),
    chainPassedExpiry: ({ context }) => chainPassedExpiry(context),
    awaitingChain: ({ context }) => isAwaitingChainTime(context),
    notAwaitingChain: ({ context }) => !isAwaitingChainTime(context),
    /** Not taken, and not the invoice's at all: announced (emitted) for the host to record as unattributed. */
    announcedRefusal: ({ context, event }) => event.type === 'TRANSFER_SEEN' && refusalOf(ticked(context, event), event) !== null,
    /** Not taken (the observation is not applied, only its time). */
    transferRefused: ({ context, event }) => event.type === 'TRANSFER_SEEN' && transferRefusal(ticked(context, event), event) !== null,
    networkChangeAllowed: ({ context, event }) => event.type === 'NETWORK_CHANGED' && networkChangeAllowed(context, event),
    cancelAllowed: ({ context, event }) => event.type === 'CANCEL' && cancelAllowed(context, event),
  },
  actions: {
    enter: assign(({ context }, params: { status: InvoiceStatus }) => enterStatus(context, params.status)),
    tick: assign(({ context, event }) => ticked(context, event)),
    takeTransfer: assign(({ context, event }) => (event.type === 'TRANSFER_SEEN' ? observeTransfer(context, event) : context)),
    refuseTransfer: emit(({ context, event }) => {
      const seen = event as TransferSeenEvent; // only wired to TRANSFER_SEEN
      return { type: 'transfer.refused' as const, key: paymentKey(seen.payment), reason: refusalOf(ticked(context, seen), seen) ?? 'invalid_transfer' };
    }),
    confirm: assign(({ context, event }) => (event.type === 'CONFIRMATIONS' ? observeConfirmations(context, event) : context)),
    revert: assign(({ context, event }) => (event.type === 'TRANSFER_REVERTED' ? observeRevert(context, event) : context)),
    chainTime: assign(({ context, event }) => (event.type === 'CHAIN_TIME' ? observeChainTime(context, event) : context)),
    changeNetwork: assign(({ context, event }) => (event.type === 'NETWORK_CHANGED' ? changeNetwork(context, event) : context)),
    /** The expiry delay fired: the machine's now reaches expires_at (expired if the chain has too). */
    reachExpiry: assign(({ context }) => advanceInvoiceTime(context, context.expiresAt)),
    reachLateWindowEnd: assign(({ context }) => advanceInvoiceTime(context, lateWindowEndsAt(context) ?? context.observedAt)),
  },
});

function edgesFrom(status: InvoiceStatus) {
  return INVOICE_EDGES[status].map((to) => ({ guard: { type: 'derives' as const, params: { status: to } }, target: `#invoice.${to}` }));
}

/** pending, confirming, partially_paid: expire at expires_at once the chain is there too. */
function openState(status: 'pending' | 'confirming' | 'partially_paid') {
  return {
    entry: { type: 'enter' as const, params: { status } },
    initial: 'running' as const,
    always: edgesFrom(status),
    after: {
      untilExpiry: [
        { guard: 'chainPassedExpiry' as const, actions: 'reachExpiry' as const },
        { target: '.awaitingChain', actions: 'reachExpiry' as const },
      ],
    },
    on: { RESUME: { target: `#invoice.${status}`, reenter: true, actions: 'tick' as const } },
    states: {
      running: { always: { guard: 'awaitingChain' as const, target: 'awaitingChain' } },
      /** Past expires_at on the clock; the host sends CHAIN_TIME once its watcher has processed that far. */
      awaitingChain: { tags: [AWAITING_CHAIN_TAG], always: { guard: 'notAwaitingChain' as const, target: 'running' } },
    },
  };
}

/** paid, overpaid, underpaid, expired: late money may still move it up; closes once canClose. */
function endedState(status: 'paid' | 'overpaid' | 'underpaid' | 'expired' | 'canceled') {
  return {
    entry: { type: 'enter' as const, params: { status } },
    // The status edges first: late money confirmed in the same step as the window's end still counts.
    always: [...edgesFrom(status), { guard: 'canClose' as const, target: '#invoice.closed' }],
    after: { untilLateWindowEnds: { actions: 'reachLateWindowEnd' as const } },
    on: { RESUME: { target: `#invoice.${status}`, reenter: true, actions: 'tick' as const } },
  };
}

export const invoiceMachine = machineSetup.createMachine({
  id: 'invoice',
  context: ({ input }) => input,
  // Transient: a new context is pending; one rebuilt from a row goes to its status at once.
  initial: 'created',
  on: {
    TRANSFER_SEEN: [{ guard: 'announcedRefusal', actions: ['tick', 'refuseTransfer'] }, { guard: 'transferRefused', actions: 'tick' }, { actions: 'takeTransfer' }],
    CONFIRMATIONS: { actions: 'confirm' },
    TRANSFER_REVERTED: { actions: 'revert' },
    CHAIN_TIME: { actions: 'chainTime' },
    // Taken only by `pending` (below); anywhere else only its time counts.
    NETWORK_CHANGED: { actions: 'tick' },
    CANCEL: { actions: 'tick' },
  },
  states: {
    created: {
      always: [
        { guard: ({ context }) => context.status === 'confirming', target: 'confirming' },
        { guard: ({ context }) => context.status === 'partially_paid', target: 'partially_paid' },
        { guard: ({ context }) => context.status === 'paid', target: 'paid' },
        { guard: ({ context }) => context.status === 'overpaid', target: 'overpaid' },
        { guard: ({ context }) => context.status === 'underpaid', target: 'underpaid' },
        { guard: ({ context }) => context.status === 'expired', target: 'expired' },
        { guard: ({ context }) => context.status === 'canceled', target: 'canceled' },
        { target: 'pending' },
      ],
    },
    pending: {
      ...openState('pending'),
      on: {
        ...openState('pending').on,
        NETWORK_CHANGED: { guard: 'networkChangeAllowed', actions: 'changeNetwork' },
        // Not allowed: only its time counts (an invoice past expires_at then expires as usual).
        CANCEL: [{ guard: 'cancelAllowed', target: '#invoice.canceled', actions: 'tick' }, { actions: 'tick' }],
      },
    },
    confirming: openState('confirming'),
    partially_paid: openState('partially_paid'),
    paid: endedState('paid'),
    overpaid: endedState('overpaid'),
    underpaid: endedState('underpaid'),
    expired: endedState('expired'),
    /** The merchant canceled it while pending and empty; late money is still recorded and booked. */
    canceled: endedState('canceled'),
    /** The late-payment window is over and nothing is confirming; context.status keeps the outcome. */
    closed: { type: 'final' },
  },
});

export type InvoiceMachine = typeof invoiceMachine;
/** Top-level state values of the invoice actor: the statuses plus `closed` (open states have substates). */
export type InvoiceStateValue = InvoiceStatus | 'closed';

/** The top-level state of a snapshot's value (`{ pending: 'running' }` → `pending`). */
export function invoiceStateOf(value: unknown): InvoiceStateValue | 'created' {
  const top = typeof value === 'string' ? value : Object.keys(value as object)[0];
  return top as InvoiceStateValue | 'created';
}
