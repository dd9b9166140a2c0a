import { createActor, fromPromise, SimulatedClock, type Snapshot } from 'xstate';
import { ConflictError, UnavailableError, ValidationError } from './errors';
import { createWithdrawalContext, type CheckPayoutOutput, type PayoutActorInput, type SignPayoutInput, type WithdrawalSignedPayout } from './withdrawal-context';
import { withdrawalMachine } from './withdrawal-machine';

const T0 = Date.parse('2025-03-01T12:00:00.000Z');
const POLL = 5_000;

type CheckResult = 'unknown' | 'pending' | 'reverted' | 'expired' | { mined: number } | { output: CheckPayoutOutput } | Error;

/** A scripted in-memory chain standing in for the adapter behind the three actors. */
class FakeChain {
  signed: SignPayoutInput[] = [];
  broadcasts: PayoutActorInput[] = [];
  checks = 0;
  signErrors: Error[] = [];
  broadcastErrors: Error[] = [];
  checkScript: CheckResult[] = [];
  hangBroadcast = false;

  constructor(readonly clock: SimulatedClock) {}

  implementations() {
    return {
      actors: {
        signPayout: fromPromise<WithdrawalSignedPayout, SignPayoutInput>(async ({ input }) => {
          this.signed.push(input);
          const err = this.signErrors.shift();
          if (err) throw err;
          return { txHash: `0xtx${this.signed.length}`, raw: `raw:${input.to}:${input.amount}`, meta: { nonce: 7 } };
        }),
        broadcastPayout: fromPromise<void, PayoutActorInput>(async ({ input }) => {
          this.broadcasts.push(input);
          if (this.hangBroadcast) return new Promise<void>(() => undefined);
          const err = this.broadcastErrors.shift();
          if (err) throw err;
        }),
        checkPayout: fromPromise<CheckPayoutOutput, PayoutActorInput>(async (): Promise<CheckPayoutOutput> => {
          this.checks++;
          const next = this.checkScript.shift() ?? 'pending';
          const at = new Date(this.clock.now()).toISOString();
          if (next instanceof Error) throw next;
          if (typeof next === 'object' && 'output' in next) return { ...next.output, at };
          if (typeof next === 'object') return { state: 'mined', blockHeight: 10, confirmations: next.mined, at };
          if (next === 'reverted') return { state: 'reverted', blockHeight: 10, at };
          return { state: next, at };
        }),
      },
    };
  }
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

function harness(options: { review?: boolean; snapshot?: Snapshot<unknown>; script?: (chain: FakeChain) => void } = {}) {
  const clock = new SimulatedClock();
  clock.set(T0);
  const chain = new FakeChain(clock);
  options.script?.(chain); // before start(): signing begins at once
  const machine = withdrawalMachine.provide(chain.implementations());
  const input = createWithdrawalContext({ uuid: 'wd-1', network: 'TRC20', address: 'TDest', netPayout: '98.50', requiredConfirmations: 3, review: options.review ?? false, pollIntervalMs: POLL });
  const actor = options.snapshot ? createActor(machine, { snapshot: options.snapshot, clock, input: undefined as never }) : createActor(machine, { input, clock });
  actor.start();
  return {
    clock,
    chain,
    actor,
    ctx: () => actor.getSnapshot().context,
    value: () => actor.getSnapshot().value,
    /** Let the fake chain's promises settle, then let the poll timer run. */
    poll: async () => {
      await flush();
      clock.increment(POLL);
      await flush();
    },
  };
}

describe('withdrawal machine', () => {
  it('within the caps: signs, broadcasts and completes after the required confirmations', async () => {
    const h = harness();
    h.chain.checkScript = ['pending', { mined: 1 }, { mined: 3 }];
    expect(h.ctx().status).toBe('processing');
    await flush();
    expect(h.value()).toEqual({ processing: { confirming: 'waiting' } });
    expect(h.ctx()).toMatchObject({ txHash: '0xtx1', signed: { txHash: '0xtx1', raw: 'raw:TDest:98.5', meta: { nonce: 7 } } });
    expect(h.chain.signed).toEqual([{ id: 'wd-1', network: 'TRC20', to: 'TDest', amount: '98.5' }]);
    expect(h.chain.broadcasts).toHaveLength(1);
    await h.poll();
    expect(h.ctx()).toMatchObject({ status: 'processing', confirmations: 0 });
    await h.poll();
    expect(h.ctx()).toMatchObject({ status: 'processing', confirmations: 1 });
    await h.poll();
    expect(h.value()).toBe('completed');
    expect(h.ctx()).toMatchObject({ status: 'completed', confirmations: 3, completedAt: new Date(T0 + 3 * POLL).toISOString(), failureReason: null });
    expect(h.actor.getSnapshot().status).toBe('done');
    expect(h.chain.checks).toBe(3);
  });

  it('waits in review for an operator: APPROVE processes it', async () => {
    const h = harness({ review: true });
    expect(h.value()).toBe('review');
    await h.poll();
    expect(h.chain.signed).toHaveLength(0);
    h.actor.send({ type: 'APPROVE' });
    expect(h.ctx().status).toBe('processing');
    h.chain.checkScript = [{ mined: 5 }];
    await h.poll();
    expect(h.ctx().status).toBe('completed');
  });

  it('REJECT in review records the reason; nothing is signed', () => {
    const h = harness({ review: true });
    h.actor.send({ type: 'REJECT', reason: 'suspicious destination' });
    expect(h.ctx()).toMatchObject({ status: 'rejected', rejectionReason: 'suspicious destination' });
    h.actor.send({ type: 'APPROVE' });
    expect(h.ctx().status).toBe('rejected');
    expect(h.chain.signed).toHaveLength(0);
  });

  it('APPROVE and REJECT do nothing outside review', async () => {
    const h = harness();
    h.actor.send({ type: 'REJECT', reason: 'late' });
    await flush();
    expect(h.ctx()).toMatchObject({ status: 'processing', rejectionReason: null });
  });

  it('fails when the payout reverts on chain', async () => {
    const h = harness();
    h.chain.checkScript = ['reverted'];
    await h.poll();
    expect(h.ctx()).toMatchObject({
      status: 'failed',
      failureReason: "reverted_on_chain: payout transaction 0xtx1 reverted in block 10; the amount was released to the merchant's balance",
      txHash: '0xtx1',
    });
  });

  it('rebroadcasts the same signed transaction when the chain does not know it', async () => {
    const h = harness();
    h.chain.checkScript = ['unknown', { mined: 3 }];
    await h.poll();
    expect(h.chain.broadcasts).toHaveLength(2);
    expect(h.chain.broadcasts[1]).toEqual(h.chain.broadcasts[0]);
    await h.poll();
    expect(h.ctx().status).toBe('completed');
    expect(h.chain.signed).toHaveLength(1);
  });

  it('takes the replacement a fee bump made; rebroadcasts that one; completes with the version that was mined', async () => {
    const h = harness();
    const bumped = { txHash: '0xbumped', raw: 'raw:bumped', meta: { nonce: 7, replaces: '0xtx1' } };
    h.chain.checkScript = [{ output: { state: 'pending', payout: bumped, at: '' } }, 'unknown', { output: { state: 'mined', blockHeight: 10, confirmations: 3, txHash: '0xtx1', at: '' } }];
    await h.poll();
    expect(h.ctx()).toMatchObject({ signed: bumped, txHash: '0xbumped', status: 'processing' });
    await h.poll();
    expect(h.chain.broadcasts.at(-1)!.payout).toEqual(bumped);
    await h.poll();
    // The stuck original won the race against its replacement: the withdrawal shows the mined one.
    expect(h.ctx()).toMatchObject({ status: 'completed', txHash: '0xtx1', signed: bumped });
    expect(h.chain.signed).toHaveLength(1);
  });

  it('an expired payout goes back to signing with `replacing` = its hash; the new one is broadcast and followed', async () => {
    const h = harness();
    h.chain.checkScript = ['expired', { mined: 3 }];
    await h.poll();
    // sign(replacing) resolved with the new transaction, which was broadcast at once.
    expect(h.chain.signed).toHaveLength(2);
    expect(h.chain.signed[0]!.replacing).toBeUndefined();
    expect(h.chain.signed[1]).toMatchObject({ id: 'wd-1', replacing: '0xtx1' });
    expect(h.chain.broadcasts.map((b) => b.payout.txHash)).toEqual(['0xtx1', '0xtx2']);
    expect(h.ctx()).toMatchObject({ status: 'processing', signed: { txHash: '0xtx2' }, txHash: '0xtx2', replacing: null, confirmations: 0 });
    await h.poll();
    expect(h.ctx()).toMatchObject({ status: 'completed', txHash: '0xtx2' });
    expect(h.chain.signed).toHaveLength(2);
  });

  it('a broadcast refused as expired (payout_expired) never fails the withdrawal: it waits for the status check', async () => {
    const h = harness();
    h.chain.broadcastErrors = [new UnavailableError('payout_expired', 'too late')];
    h.chain.checkScript = ['unknown'];
    await flush();
    expect(h.value()).toEqual({ processing: { confirming: 'waiting' } });
    expect(h.ctx()).toMatchObject({ status: 'processing', failureReason: null });
    await h.poll(); // unknown: sent again (the chain decides whether it is still valid)
    expect(h.chain.broadcasts).toHaveLength(2);
    expect(h.chain.signed).toHaveLength(1);

    // Whatever kind of DomainError carries the code: never a failure (the guard comes before the permanent one).
    const k = harness();
    k.chain.broadcastErrors = [new ValidationError('payout_expired', 'too late')];
    await flush();
    expect(k.value()).toEqual({ processing: { confirming: 'waiting' } });
    expect(k.ctx()).toMatchObject({ status: 'processing', failureReason: null });
  });

  it('retries transient broadcast errors, fails on a definitive refusal', async () => {
    const h = harness();
    h.chain.broadcastErrors = [new UnavailableError('rpc_down', 'node unreachable'), new Error('socket hang up')];
    await flush();
    expect(h.value()).toEqual({ processing: 'broadcastRetry' });
    await h.poll();
    expect(h.value()).toEqual({ processing: 'broadcastRetry' });
    await h.poll();
    expect(h.value()).toEqual({ processing: { confirming: 'waiting' } });
    expect(h.chain.broadcasts).toHaveLength(3);

    const k = harness();
    k.chain.broadcastErrors = [new ValidationError('tx_rejected', 'insufficient hot wallet balance')];
    await flush();
    // failure_reason: the code, then the error's own words (what an operator reads).
    expect(k.ctx()).toMatchObject({ status: 'failed', failureReason: 'tx_rejected: insufficient hot wallet balance' });
  });

  it('retries transient signing errors, fails on a definitive one', async () => {
    const h = harness({ script: (c) => (c.signErrors = [new Error('hsm busy')]) });
    await flush();
    expect(h.value()).toEqual({ processing: 'signRetry' });
    await h.poll();
    expect(h.chain.signed).toHaveLength(2);
    expect(h.ctx().txHash).toBe('0xtx2');

    const k = harness({ script: (c) => (c.signErrors = [new ValidationError('invalid_address', 'bad address')]) });
    await flush();
    expect(k.ctx()).toMatchObject({ status: 'failed', failureReason: 'invalid_address: bad address', txHash: null });
  });

  it('tx_hash stays null until the payout was broadcast; the signed hash is kept in `signed` meanwhile', async () => {
    const h = harness();
    h.chain.hangBroadcast = true;
    await flush();
    expect(h.value()).toEqual({ processing: 'broadcasting' });
    expect(h.ctx()).toMatchObject({ txHash: null, signed: { txHash: '0xtx1' } });

    const k = harness();
    k.chain.broadcastErrors = [new Error('socket hang up')];
    await flush();
    expect(k.value()).toEqual({ processing: 'broadcastRetry' });
    expect(k.ctx().txHash).toBeNull();
    await k.poll();
    expect(k.value()).toEqual({ processing: { confirming: 'waiting' } });
    expect(k.ctx().txHash).toBe('0xtx1');
  });

  it('a nonce used by another transaction never fails the withdrawal: it waits for an operator (held, nothing re-signed), polling; REJECT ends it', async () => {
    const h = harness();
    h.chain.broadcastErrors = [new ConflictError('payout_nonce_consumed', 'nonce 7 was used by another transaction')];
    h.chain.checkScript = ['unknown', 'unknown'];
    await flush();
    expect(h.value()).toEqual({ processing: { needsOperator: 'waiting' } });
    expect(h.ctx()).toMatchObject({ status: 'processing', attention: 'payout_nonce_consumed', failureReason: null, txHash: null });
    await h.poll();
    await h.poll();
    expect(h.chain.checks).toBe(2);
    expect(h.value()).toEqual({ processing: { needsOperator: 'waiting' } });
    expect(h.chain.signed).toHaveLength(1);
    expect(h.chain.broadcasts).toHaveLength(1); // not sent again either: the operator decides
    h.actor.send({ type: 'APPROVE' });
    expect(h.ctx().status).toBe('processing');
    h.actor.send({ type: 'REJECT', reason: 'checked the chain: not paid' });
    expect(h.ctx()).toMatchObject({ status: 'rejected', rejectionReason: 'checked the chain: not paid', attention: 'payout_nonce_consumed' });
    expect(h.actor.getSnapshot().status).toBe('done');
  });

  it('waiting for an operator, a version the chain reports after all (a lagging node caught up) is followed to completion', async () => {
    const h = harness();
    h.chain.broadcastErrors = [new ConflictError('payout_nonce_consumed', 'nonce 7 was used by another transaction')];
    h.chain.checkScript = [{ mined: 1 }, { mined: 1 }, { mined: 3 }];
    await h.poll();
    expect(h.value()).toEqual({ processing: { confirming: 'waiting' } });
    expect(h.ctx()).toMatchObject({ status: 'processing', attention: null, confirmations: 1, txHash: '0xtx1' });
    await h.poll();
    expect(h.ctx()).toMatchObject({ status: 'completed', txHash: '0xtx1' });
    expect(h.chain.signed).toHaveLength(1);
  });

  it('keeps polling when the status check fails', async () => {
    const h = harness();
    h.chain.checkScript = [new Error('timeout'), { mined: 3 }];
    await h.poll();
    expect(h.value()).toEqual({ processing: { confirming: 'waiting' } });
    await h.poll();
    expect(h.ctx().status).toBe('completed');
  });

  it('without a provided implementation the placeholders refuse and retry', async () => {
    const clock = new SimulatedClock();
    const actor = createActor(withdrawalMachine, {
      clock,
      input: createWithdrawalContext({ uuid: 'x', network: 'TON', address: 'a', netPayout: '1', requiredConfirmations: 1, review: false }),
    }).start();
    await flush();
    expect(actor.getSnapshot().value).toEqual({ processing: 'signRetry' });
  });
});

describe('withdrawal machine: persistence', () => {
  const persist = (actor: { getPersistedSnapshot(): unknown }) => JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as Snapshot<unknown>;

  it('restored while waiting, it polls again after RESUME and never re-signs', async () => {
    const h = harness();
    await flush();
    const saved = persist(h.actor);
    h.actor.stop();

    const r = harness({ snapshot: saved });
    r.chain.checkScript = [{ mined: 4 }];
    await r.poll();
    expect(r.chain.checks).toBe(0); // no timer survives a restore
    r.actor.send({ type: 'RESUME' });
    await flush();
    expect(r.ctx()).toMatchObject({ status: 'completed', txHash: '0xtx1' });
    expect(r.chain.signed).toHaveLength(0);
  });

  it('restored mid-broadcast, it rebroadcasts the persisted transaction', async () => {
    const h = harness();
    h.chain.hangBroadcast = true;
    await flush();
    expect(h.value()).toEqual({ processing: 'broadcasting' });
    expect(h.ctx().txHash).toBeNull();
    const saved = persist(h.actor);
    h.actor.stop();

    const r = harness({ snapshot: saved });
    await flush();
    expect(r.chain.signed).toHaveLength(0);
    expect(r.chain.broadcasts).toEqual([{ id: 'wd-1', network: 'TRC20', payout: { txHash: '0xtx1', raw: 'raw:TDest:98.5', meta: { nonce: 7 } } }]);
    expect(r.value()).toEqual({ processing: { confirming: 'waiting' } });
    expect(r.ctx().txHash).toBe('0xtx1');
  });
});
