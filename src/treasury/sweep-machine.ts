/**
 * The sweep actor (XState v5), one per address sweep: [top-up: signing → sending → checking] →
 * transfer: signing → sending → checking → completed | reverted; a top-up that reverts → failed.
 * Pure: the side effects are promise actors named here as placeholders that the host replaces
 * with .provide({ actors }) (src/treasury/sweep-steps.ts):
 * - signTopUp / signTransfer → SweepTx. Must store the signed transaction on the sweep row (or find
 *   the one already stored) before resolving: re-run after a crash, they return the same one.
 * - sendTopUp / sendTransfer → void. Sending twice is harmless; sendTransfer books the pending
 *   journal (deposits → in transit) before it sends.
 * - checkTopUp / checkTransfer → SweepTxStatus. The host books from the receipt (top-up, fee, posted,
 *   voided) before resolving, so the state that follows never runs ahead of the ledger.
 * Any error is retried after pollIntervalMs (the step is idempotent); its text is kept in `error`.
 * Host duties as for the withdrawal actor: persist getPersistedSnapshot() with the row on each
 * change; after a restore send { type: 'RESUME' } so a waiting state polls at once.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { SweepTx, SweepTxStatus } from '../chains/sweeps';

export interface SweepContext {
  readonly id: string;
  readonly network: string;
  readonly target: 'hot' | 'cold';
  /** Token units, the exact amount the transfer signs. */
  readonly amount: string;
  /** Gas coin to send the address first ('0': none). */
  readonly gasTopUp: string;
  readonly pollIntervalMs: number;
  readonly topUp: SweepTx | null;
  readonly transfer: SweepTx | null;
  readonly error: string | null;
}

export interface SweepTxInput {
  readonly context: SweepContext;
  readonly tx: SweepTx;
}

export type SweepEvent = { readonly type: 'RESUME' };

function notProvided(name: string): never {
  throw new Error(`${name} is not provided: use sweepMachine.provide({ actors: { ${name} } })`);
}

const txOf = (tx: SweepTx | null): SweepTx => {
  if (tx === null) throw new Error('no signed transaction'); // invariant: signing precedes sending and checking
  return tx;
};

const errorText = (error: unknown): string => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));
const state = (output: SweepTxStatus): string => output.state;
const isFinal = (output: SweepTxStatus): boolean => (output.state === 'mined' || output.state === 'reverted') && output.final;

export const sweepMachine = setup({
  types: {} as { context: SweepContext; events: SweepEvent; input: SweepContext },
  actors: {
    signTopUp: fromPromise<SweepTx, SweepContext>(async () => notProvided('signTopUp')),
    sendTopUp: fromPromise<void, SweepTxInput>(async () => notProvided('sendTopUp')),
    checkTopUp: fromPromise<SweepTxStatus, SweepTxInput>(async () => notProvided('checkTopUp')),
    signTransfer: fromPromise<SweepTx, SweepContext>(async () => notProvided('signTransfer')),
    sendTransfer: fromPromise<void, SweepTxInput>(async () => notProvided('sendTransfer')),
    checkTransfer: fromPromise<SweepTxStatus, SweepTxInput>(async () => notProvided('checkTransfer')),
  },
  actions: {
    keepError: assign({ error: ({ event }) => errorText((event as { error?: unknown }).error) }),
  },
  delays: { pollInterval: ({ context }) => context.pollIntervalMs },
}).createMachine({
  id: 'sweep',
  context: ({ input }) => input,
  initial: 'created',
  states: {
    created: { always: [{ guard: ({ context }) => Number(context.gasTopUp) > 0, target: 'topUp' }, { target: 'transfer' }] },
    topUp: {
      initial: 'signing',
      states: {
        signing: {
          invoke: {
            src: 'signTopUp',
            input: ({ context }) => context,
            onDone: { target: 'sending', actions: assign({ topUp: ({ event }) => event.output, error: null }) },
            onError: { target: 'retrySigning', actions: 'keepError' },
          },
        },
        retrySigning: { after: { pollInterval: 'signing' }, on: { RESUME: 'signing' } },
        sending: {
          invoke: {
            src: 'sendTopUp',
            input: ({ context }) => ({ context, tx: txOf(context.topUp) }),
            onDone: 'checking',
            // A refused send may still have reached the chain: the check decides.
            onError: { target: 'waiting', actions: 'keepError' },
          },
        },
        checking: {
          invoke: {
            src: 'checkTopUp',
            input: ({ context }) => ({ context, tx: txOf(context.topUp) }),
            onDone: [
              { guard: ({ event }) => state(event.output) === 'mined', target: '#sweep.transfer' },
              { guard: ({ event }) => state(event.output) === 'reverted', target: '#sweep.failed' },
              { guard: ({ event }) => state(event.output) === 'unknown', target: 'waitingToSend' },
              { target: 'waiting' },
            ],
            onError: { target: 'waiting', actions: 'keepError' },
          },
        },
        waiting: { after: { pollInterval: 'checking' }, on: { RESUME: 'checking' } },
        waitingToSend: { after: { pollInterval: 'sending' }, on: { RESUME: 'sending' } },
      },
    },
    transfer: {
      initial: 'signing',
      states: {
        signing: {
          invoke: {
            src: 'signTransfer',
            input: ({ context }) => context,
            onDone: { target: 'sending', actions: assign({ transfer: ({ event }) => event.output, error: null }) },
            onError: { target: 'retrySigning', actions: 'keepError' },
          },
        },
        retrySigning: { after: { pollInterval: 'signing' }, on: { RESUME: 'signing' } },
        sending: {
          invoke: {
            src: 'sendTransfer',
            input: ({ context }) => ({ context, tx: txOf(context.transfer) }),
            onDone: 'checking',
            onError: { target: 'waiting', actions: 'keepError' },
          },
        },
        checking: {
          invoke: {
            src: 'checkTransfer',
            input: ({ context }) => ({ context, tx: txOf(context.transfer) }),
            onDone: [
              { guard: ({ event }) => isFinal(event.output) && state(event.output) === 'mined', target: '#sweep.completed' },
              { guard: ({ event }) => isFinal(event.output) && state(event.output) === 'reverted', target: '#sweep.reverted' },
              { guard: ({ event }) => state(event.output) === 'unknown', target: 'waitingToSend' },
              { target: 'waiting' },
            ],
            onError: { target: 'waiting', actions: 'keepError' },
          },
        },
        waiting: { after: { pollInterval: 'checking' }, on: { RESUME: 'checking' } },
        waitingToSend: { after: { pollInterval: 'sending' }, on: { RESUME: 'sending' } },
      },
    },
    completed: { type: 'final' },
    reverted: { type: 'final' },
    failed: { type: 'final' },
  },
});

export type SweepOutcome = 'completed' | 'reverted' | 'failed';
