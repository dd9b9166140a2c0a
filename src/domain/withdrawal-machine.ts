/**
 * The withdrawal actor (XState v5): review → processing (signing → broadcasting → confirming)
 * → completed | failed; review → rejected. Pure: the three side effects are invoked promise
 * actors named here as placeholders that the host replaces with .provide({ actors }):
 * - signPayout(SignPayoutInput) → WithdrawalSignedPayout. Must persist the signed transaction (or
 *   find the one already persisted for this id) before resolving: signing is re-run if the daemon
 *   stopped mid-way, and must then return the same transaction, never a new one.
 * - broadcastPayout(PayoutActorInput) → void. Sending the same transaction twice is harmless.
 * - checkPayout(PayoutActorInput) → CheckPayoutOutput (chains' PayoutStatus + `at` = clock now).
 * A DomainError that is not `unavailable` fails the withdrawal (funds are released by the host on
 * entering `failed`), except the codes of NEEDS_OPERATOR_CODES: those prove nothing about where the
 * money went, so the withdrawal waits in processing.needsOperator (amount held, status polled: a
 * mined version still completes it) until an operator REJECTs it. Any other error is retried after
 * pollIntervalMs.
 *
 * A signing refused with AWAITING_FUNDS (the hot wallet cannot pay: USDT or gas short) waits in
 * processing.fundsWait, nothing signed, `attention` saying what to send, and signs again each poll
 * until the wallet can pay; never failed on it (an operator may REJECT it).
 *
 * A check that finds the signed transaction `expired` (it can never execute: TRON, TON, SOLANA)
 * goes back to signing with `replacing` = its hash; the host signs anew only while the row still
 * holds that transaction (one expiry, one new signature), stores it, and the new one is broadcast.
 * A broadcast refused as expired waits for the status check instead (never fails the withdrawal).
 *
 * `txHash` is null until the payout was broadcast (the signed hash lives in `signed`); after a fee
 * bump it is the newest broadcast version, or the version that was mined.
 *
 * Host duties: persist getPersistedSnapshot() with the row on every change. After a restore,
 * a pending sign/broadcast/check actor re-runs by itself (XState restarts active promise actors),
 * but `after` timers are not persisted: send { type: 'RESUME' } once after start() so a waiting
 * state polls (or retries) at once.
 */
import { assign, fromPromise, setup } from 'xstate';
import {
  awaitingFunds,
  checkedPayout,
  errorText,
  failureText,
  isPermanentPayoutError,
  needsOperator,
  payoutExpired,
  revertedText,
  type CheckPayoutOutput,
  type PayoutActorInput,
  type SignPayoutInput,
  type WithdrawalMachineContext,
  type WithdrawalSignedPayout,
} from './withdrawal-context';

/** CANCEL: a refund's merchant withdrew it while in review (before any payout); the hold is released. */
export type WithdrawalMachineEvent = { readonly type: 'APPROVE' } | { readonly type: 'REJECT'; readonly reason: string } | { readonly type: 'CANCEL' } | { readonly type: 'RESUME' };

function notProvided(name: string): never {
  throw new Error(`${name} is not provided: use withdrawalMachine.provide({ actors: { ${name} } })`);
}

/** The block of a reverted payout (the guards only pass a `reverted` output here). */
const reverted = (output: CheckPayoutOutput): number => (output.state === 'reverted' ? output.blockHeight : 0);

const payoutInput = ({ context }: { context: WithdrawalMachineContext }): PayoutActorInput => {
  if (!context.signed) throw new Error('no signed payout'); // invariant: signing precedes these states
  return { id: context.uuid, network: context.network, payout: context.signed };
};

const signInput = ({ context }: { context: WithdrawalMachineContext }): SignPayoutInput => ({
  id: context.uuid,
  network: context.network,
  to: context.address,
  amount: context.netPayout,
  ...(context.replacing ? { replacing: context.replacing } : {}),
});

export const withdrawalMachine = setup({
  types: {} as {
    context: WithdrawalMachineContext;
    events: WithdrawalMachineEvent;
    input: WithdrawalMachineContext;
  },
  actors: {
    signPayout: fromPromise<WithdrawalSignedPayout, SignPayoutInput>(async () => notProvided('signPayout')),
    broadcastPayout: fromPromise<void, PayoutActorInput>(async () => notProvided('broadcastPayout')),
    checkPayout: fromPromise<CheckPayoutOutput, PayoutActorInput>(async () => notProvided('checkPayout')),
  },
  delays: {
    pollInterval: ({ context }) => context.pollIntervalMs,
  },
}).createMachine({
  id: 'withdrawal',
  context: ({ input }) => input,
  // Transient: a new withdrawal goes straight to review or processing (never persisted here).
  initial: 'created',
  states: {
    created: {
      always: [{ guard: ({ context }) => context.status === 'review', target: 'review' }, { target: 'processing' }],
    },
    review: {
      entry: assign({ status: 'review' }),
      on: {
        APPROVE: 'processing',
        REJECT: { target: 'rejected', actions: assign({ rejectionReason: ({ event }) => event.reason }) },
        CANCEL: 'canceled',
      },
    },
    processing: {
      entry: assign({ status: 'processing' }),
      initial: 'signing',
      states: {
        signing: {
          invoke: {
            src: 'signPayout',
            input: signInput,
            onDone: {
              target: 'broadcasting',
              actions: assign({ signed: ({ event }) => event.output, replacing: null }),
            },
            onError: [
              { guard: ({ event }) => awaitingFunds(event.error), target: 'fundsWait', actions: assign({ attention: ({ event }) => failureText(event.error) }) },
              {
                guard: ({ event }) => isPermanentPayoutError(event.error),
                target: '#withdrawal.failed',
                actions: assign({ failureReason: ({ event }) => failureText(event.error) }),
              },
              { target: 'signRetry' },
            ],
          },
        },
        signRetry: { after: { pollInterval: 'signing' }, on: { RESUME: 'signing' } },
        // The hot wallet cannot pay (USDT or gas short): nothing was signed. The same signing is
        // tried again each poll (the host asks the family for the wallet's balances first) until it
        // can pay; `attention` says what to send where. Held, never failed; an operator may REJECT.
        fundsWait: {
          initial: 'waiting',
          on: { REJECT: { target: '#withdrawal.rejected', actions: assign({ rejectionReason: ({ event }) => event.reason }) } },
          states: {
            waiting: { after: { pollInterval: 'checking' }, on: { RESUME: 'checking' } },
            checking: {
              invoke: {
                src: 'signPayout',
                input: signInput,
                onDone: {
                  target: '#withdrawal.processing.broadcasting',
                  actions: assign({ signed: ({ event }) => event.output, replacing: null, attention: null }),
                },
                onError: [
                  { guard: ({ event }) => awaitingFunds(event.error), target: 'waiting', actions: assign({ attention: ({ event }) => failureText(event.error) }) },
                  {
                    guard: ({ event }) => isPermanentPayoutError(event.error),
                    target: '#withdrawal.failed',
                    actions: assign({ failureReason: ({ event }) => failureText(event.error), attention: null }),
                  },
                  { target: 'waiting' },
                ],
              },
            },
          },
        },
        broadcasting: {
          invoke: {
            src: 'broadcastPayout',
            input: payoutInput,
            onDone: { target: 'confirming', actions: assign({ txHash: ({ context }) => context.signed?.txHash ?? context.txHash }) },
            onError: [
              // Too late to send (its expiry passed): the status check says when it is final.
              { guard: ({ event }) => payoutExpired(event.error), target: 'confirming' },
              {
                guard: ({ event }) => needsOperator(event.error),
                target: 'needsOperator',
                actions: assign({ attention: ({ event }) => errorText(event.error) }),
              },
              {
                guard: ({ event }) => isPermanentPayoutError(event.error),
                target: '#withdrawal.failed',
                actions: assign({ failureReason: ({ event }) => failureText(event.error) }),
              },
              { target: 'broadcastRetry' },
            ],
          },
        },
        broadcastRetry: { after: { pollInterval: 'broadcasting' }, on: { RESUME: 'broadcasting' } },
        // Nothing is signed or sent anew here, and nothing is released but by an operator's REJECT.
        // The status is still polled: once a node reports a version of the payout, it goes on.
        needsOperator: {
          initial: 'waiting',
          on: { REJECT: { target: '#withdrawal.rejected', actions: assign({ rejectionReason: ({ event }) => event.reason }) } },
          states: {
            waiting: { after: { pollInterval: 'checking' }, on: { RESUME: 'checking' } },
            checking: {
              invoke: {
                src: 'checkPayout',
                input: payoutInput,
                onDone: [
                  {
                    guard: ({ event }) => event.output.state === 'reverted',
                    target: '#withdrawal.failed',
                    actions: [
                      assign(({ context, event }) => checkedPayout(context, event.output)),
                      assign({ failureReason: ({ context, event }) => revertedText(context.txHash, reverted(event.output)), attention: null }),
                    ],
                  },
                  {
                    guard: ({ event }) => event.output.state === 'mined' || event.output.state === 'pending',
                    target: '#withdrawal.processing.confirming.checking',
                    actions: [assign(({ context, event }) => checkedPayout(context, event.output)), assign({ attention: null })],
                  },
                  {
                    guard: ({ event }) => event.output.state === 'expired',
                    target: '#withdrawal.processing.signing',
                    actions: assign({ replacing: ({ context }) => context.signed?.txHash ?? null, attention: null }),
                  },
                  { target: 'waiting' },
                ],
                onError: 'waiting',
              },
            },
          },
        },
        confirming: {
          initial: 'waiting',
          states: {
            waiting: { after: { pollInterval: 'checking' }, on: { RESUME: 'checking' } },
            checking: {
              invoke: {
                src: 'checkPayout',
                input: payoutInput,
                // Every branch first takes the payout as the check found it (a fee bump may have
                // replaced the transaction; the replaced one may be the one that was mined).
                onDone: [
                  {
                    guard: ({ event }) => event.output.state === 'reverted',
                    target: '#withdrawal.failed',
                    actions: [
                      assign(({ context, event }) => checkedPayout(context, event.output)),
                      assign({ failureReason: ({ context, event }) => revertedText(context.txHash, reverted(event.output)) }),
                    ],
                  },
                  {
                    guard: ({ context, event }) => event.output.state === 'mined' && event.output.confirmations >= context.requiredConfirmations,
                    target: '#withdrawal.completed',
                    actions: [
                      assign(({ context, event }) => checkedPayout(context, event.output)),
                      assign({
                        confirmations: ({ context }) => context.requiredConfirmations,
                        completedAt: ({ event }) => event.output.at,
                      }),
                    ],
                  },
                  // It can never execute (its expiry passed on the chain): sign anew, once per expiry.
                  {
                    guard: ({ event }) => event.output.state === 'expired',
                    target: '#withdrawal.processing.signing',
                    actions: assign({ replacing: ({ context }) => context.signed?.txHash ?? null, confirmations: 0 }),
                  },
                  // Not known to the chain (dropped, or reorged out): send the same transaction again.
                  {
                    guard: ({ event }) => event.output.state === 'unknown',
                    target: '#withdrawal.processing.broadcasting',
                    actions: assign(({ context, event }) => checkedPayout(context, event.output)),
                  },
                  {
                    target: 'waiting',
                    actions: [
                      assign(({ context, event }) => checkedPayout(context, event.output)),
                      assign({ confirmations: ({ event }) => (event.output.state === 'mined' ? event.output.confirmations : 0) }),
                    ],
                  },
                ],
                // The chain could not be asked: ask again later (never a reason to fail).
                onError: 'waiting',
              },
            },
          },
        },
      },
    },
    completed: { type: 'final', entry: assign({ status: 'completed' }) },
    rejected: { type: 'final', entry: assign({ status: 'rejected' }) },
    failed: { type: 'final', entry: assign({ status: 'failed' }) },
    canceled: { type: 'final', entry: assign({ status: 'canceled' }) },
  },
});

export type WithdrawalMachine = typeof withdrawalMachine;
