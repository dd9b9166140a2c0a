import { createActor, fromPromise, SimulatedClock } from 'xstate';
import { DomainError, UnavailableError, ValidationError } from './errors';
import { AWAITING_FUNDS, createWithdrawalContext, type CheckPayoutOutput, type PayoutActorInput, type SignPayoutInput, type WithdrawalSignedPayout } from './withdrawal-context';
import { withdrawalMachine } from './withdrawal-machine';

const POLL = 5_000;
const flush = () => new Promise((resolve) => setImmediate(resolve));
const short = (send: string) => new DomainError('unavailable', AWAITING_FUNDS, `TRC20 hot wallet T1 cannot pay this payout: send ${send} to T1 on TRC20`);

/**
 * processing.fundsWait (issue 45 item 7): a hot wallet short of money never fails a withdrawal and
 * nothing is broadcast while it waits; the signing (with the host's funds check) is tried each poll;
 * `attention` says what to send; an operator may REJECT it.
 */
function harness(signErrors: Error[]) {
  const clock = new SimulatedClock();
  clock.set(Date.parse('2026-11-29T00:00:00Z'));
  const signed: SignPayoutInput[] = [];
  const broadcasts: PayoutActorInput[] = [];
  const machine = withdrawalMachine.provide({
    actors: {
      signPayout: fromPromise<WithdrawalSignedPayout, SignPayoutInput>(async ({ input }) => {
        signed.push(input);
        const err = signErrors.shift();
        if (err) throw err;
        return { txHash: '0xtx', raw: 'raw', meta: {} };
      }),
      broadcastPayout: fromPromise<void, PayoutActorInput>(async ({ input }) => {
        broadcasts.push(input);
      }),
      checkPayout: fromPromise<CheckPayoutOutput, PayoutActorInput>(async () => ({ state: 'pending', at: new Date(clock.now()).toISOString() })),
    },
  });
  const input = createWithdrawalContext({ uuid: 'w-1', network: 'TRC20', address: 'T2', netPayout: '49', requiredConfirmations: 1, review: false, pollIntervalMs: POLL });
  const actor = createActor(machine, { input, clock });
  actor.start();
  return { actor, clock, signed, broadcasts };
}

describe('withdrawal machine: a hot wallet short of money', () => {
  it('waits in fundsWait (never failed, nothing broadcast), re-checks each poll, then goes on once the wallet can pay', async () => {
    const h = harness([short('44 USDT'), short('4 USDT')]);
    await flush();
    expect(h.actor.getSnapshot().value).toEqual({ processing: { fundsWait: 'waiting' } });
    expect(h.actor.getSnapshot().context).toMatchObject({ status: 'processing', attention: expect.stringContaining('send 44 USDT'), failureReason: null });
    h.clock.increment(POLL);
    await flush();
    expect(h.actor.getSnapshot().context.attention).toContain('send 4 USDT');
    expect(h.broadcasts).toHaveLength(0);
    h.clock.increment(POLL);
    await flush();
    await flush();
    expect(h.signed).toHaveLength(3);
    expect(h.broadcasts).toHaveLength(1);
    expect(h.actor.getSnapshot().context).toMatchObject({ status: 'processing', attention: null, signed: { txHash: '0xtx' } });
  });

  it('a node that does not answer keeps it waiting; a permanent refusal still fails it; an operator may reject it', async () => {
    const retried = harness([short('1 USDT'), new UnavailableError('rpc_unavailable', 'node down'), short('1 USDT')]);
    await flush();
    retried.clock.increment(POLL);
    await flush();
    expect(retried.actor.getSnapshot().value).toEqual({ processing: { fundsWait: 'waiting' } });
    retried.actor.send({ type: 'REJECT', reason: 'no liquidity today' });
    expect(retried.actor.getSnapshot().context).toMatchObject({ status: 'rejected', rejectionReason: 'no liquidity today' });

    const failed = harness([short('1 USDT'), new ValidationError('payout_rejected', 'the transfer would fail')]);
    await flush();
    failed.clock.increment(POLL);
    await flush();
    expect(failed.actor.getSnapshot().context).toMatchObject({ status: 'failed', failureReason: 'payout_rejected: the transfer would fail', attention: null });
  });
});
