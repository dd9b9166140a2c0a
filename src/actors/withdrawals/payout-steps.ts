import { fromPromise } from 'xstate';
import { operatorAlertOf } from '../../chains/errors';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import { DomainError, UnavailableError } from '../../domain/errors';
import type { NetworkCode } from '../../domain/networks';
import {
  awaitingFunds,
  errorText,
  needsOperator,
  payoutExpired,
  type CheckPayoutOutput,
  type PayoutActorInput,
  type SignPayoutInput,
  type WithdrawalSignedPayout,
} from '../../domain/withdrawal-context';
import type { ChainAdapter, PayoutBook } from '../../chains/types';
import { RawSql, type Query } from '../../store/raw-sql';
import { HOST_META, highestOpenSequence, lockPayoutRow, readPayoutRow, storeSignedPayout, type PayoutRow } from '../../store/repos/payout-rows';
import { PayoutSlots } from './payout-slots';
import type { RequestLoad } from '../../lib/request-load';
import { classifyPayoutError } from './payout-errors';
import { PayoutFundsGate } from './payout-funds';
import { killAt, type PayoutKillPoint } from './kill-point';

export { killPointFromEnv, type PayoutKillPoint } from './kill-point';

export interface PayoutStepDeps {
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly adapters: ReadonlyMap<NetworkCode, ChainAdapter>;
  /** Resolves once every state change of this withdrawal so far is committed. */
  readonly settled: (uuid: string) => Promise<void>;
  readonly killAt?: PayoutKillPoint;
  /** Payout steps running at once (PAYOUT_CONCURRENCY); default 8. */
  readonly concurrency?: number;
  /** Merchant requests in flight: steps narrow to one while there are any. */
  readonly requestLoad?: RequestLoad;
  /** A payout still pending this long after it was signed is handed to the family's bumpPayout (where it has one). */
  readonly bumpAfterMs?: number;
}

/** PAYOUT_BUMP_AFTER_MS default: 5 minutes. */
export const DEFAULT_BUMP_AFTER_MS = 5 * 60 * 1000;

/**
 * The three side effects of the withdrawal machine (domain/withdrawal-machine.ts), the same for every
 * chain family (chains/types.ts, "Payouts: the family's contract"). Invariants:
 * - a payout is signed under its row's lock and stored on the row before signPayout resolves, so
 *   before any broadcast; a re-run (restart, retry) returns the stored one;
 * - a new signature is made only for a first signing, or when the family reported the stored
 *   transaction `expired` and the row still holds that very transaction (checked again under the
 *   lock): one expiry, at most one new signature;
 * - a fee bump (families with bumpPayout) is stored before it is sent, with a compare-and-set on
 *   the newest version.
 */
export class PayoutSteps {
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly slots: PayoutSlots;
  private readonly sql: RawSql;
  private readonly funds: PayoutFundsGate;

  constructor(private readonly deps: PayoutStepDeps) {
    this.slots = new PayoutSlots(deps.concurrency ?? 8, deps.requestLoad);
    this.sql = new RawSql(deps.orm);
    this.funds = new PayoutFundsGate(deps.logger);
  }

  actors() {
    return {
      signPayout: fromPromise<WithdrawalSignedPayout, SignPayoutInput>(({ input }) => this.track(this.slots.run(() => this.sign(input)))),
      broadcastPayout: fromPromise<void, PayoutActorInput>(({ input }) => this.track(this.slots.run(() => this.broadcast(input)))),
      checkPayout: fromPromise<CheckPayoutOutput, PayoutActorInput>(({ input }) => this.track(this.slots.run(() => this.check(input)))),
    };
  }

  /** Graceful stop: let running steps finish (their results are already persisted or harmless). */
  async drain(timeoutMs: number): Promise<void> {
    const all = Promise.allSettled([...this.inFlight]);
    await Promise.race([all, new Promise((r) => setTimeout(r, timeoutMs).unref())]);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p)).catch(() => undefined);
    return p;
  }

  private adapter(network: string): ChainAdapter {
    const adapter = this.deps.adapters.get(network as NetworkCode);
    if (!adapter) throw new UnavailableError('network_unavailable', `${network} is not available on this daemon`);
    return adapter;
  }

  private async sign(input: SignPayoutInput): Promise<WithdrawalSignedPayout> {
    // Never sign for a state that is not committed yet (an approval whose commit may still fail).
    await this.deps.settled(input.id);
    // Raw SQL on one connection (one signing per payout step; the unit of work would cost more than the statements).
    let resigned = false;
    // One signing per network at a time: the funds check sees the payouts signed before it.
    const signed = await this.funds.serialize(input.network, () =>
      this.sql.transaction(async (q) => {
        const row = await lockPayoutRow(q, input.id);
        if (!row) throw new Error(`withdrawal ${input.id} has no row`);
        const attempt = await this.nextAttempt(input, row);
        if (attempt === null) return row.payout!;
        resigned = row.payout !== null;
        if (row.status !== 'processing') throw new UnavailableError('withdrawal_not_processing', `withdrawal ${input.id} is ${row.status}`);
        let payout: WithdrawalSignedPayout;
        try {
          const adapter = this.adapter(input.network);
          // The host's rule for every family: nothing is signed while the hot wallet cannot pay it.
          await this.funds.assert(q, adapter, input.id, input.to, input.amount);
          const book: PayoutBook = {
            highestOpenSequence: (wallet) => highestOpenSequence(q, wallet, input.id),
            storedTxHash: async (id) => (await readPayoutRow(q, id))?.payout?.txHash ?? null,
          };
          payout = await adapter.signPayout({ id: input.id, to: input.to, amount: input.amount, attempt, book, ...(row.memo ? { comment: row.memo } : {}) });
        } catch (error) {
          const classified = classifyPayoutError(error);
          if (awaitingFunds(classified)) this.funds.alert(input.id, classified as DomainError);
          else if (!(classified instanceof DomainError)) this.signRetried(input, error);
          throw classified;
        }
        this.funds.settled(input.id);
        payout = stamped(payout, this.deps.clock.now(), row.payout);
        await storeSignedPayout(q, input.id, payout, attempt, this.deps.clock.now());
        const replaced = row.payout ? { expiredTxHash: row.payout.txHash } : {};
        this.deps.logger.info({ withdrawalUuid: input.id, network: input.network, txHash: payout.txHash, attempt, ...replaced }, 'payout signed and persisted');
        return payout;
      }),
    );
    await this.killPoint('after_sign');
    if (resigned) await this.killPoint('after_resign');
    return signed;
  }

  /**
   * Signing failed in a way that is retried (the withdrawal keeps waiting, its amount held). What
   * only an operator can fix (a family's error with an `operatorAlert`: a hot wallet short of the
   * fee coin or the token, a fee limit too low) is an error line with that alert; anything else
   * (RPC trouble) a warning.
   */
  private signRetried(input: SignPayoutInput, error: unknown): void {
    const code = (error as { code?: unknown } | null)?.code;
    const line = { err: error, withdrawalUuid: input.id, network: input.network, code: typeof code === 'string' ? code : undefined };
    const alert = operatorAlertOf(error);
    if (alert) this.deps.logger.error({ ...line, alert }, 'payout waiting for an operator (the signing is retried)');
    else this.deps.logger.warn(line, 'payout signing failed; retried');
  }

  /**
   * Under the row's lock: the attempt number to sign, or null to reuse the stored transaction. A
   * stored one is replaced only when the machine asks to replace exactly it (`replacing`) and the
   * family confirms, now, that it can never execute.
   */
  private async nextAttempt(input: SignPayoutInput, row: PayoutRow): Promise<number | null> {
    const stored = row.payout;
    if (!stored) return row.attempt;
    if (input.replacing === undefined || input.replacing !== stored.txHash) {
      this.deps.logger.info({ withdrawalUuid: input.id, txHash: stored.txHash }, 'payout already signed: reusing the persisted transaction');
      return null;
    }
    const status = await this.adapter(input.network).payoutStatus(stored);
    if (status.state !== 'expired') {
      this.deps.logger.warn({ withdrawalUuid: input.id, txHash: stored.txHash, state: status.state }, 'payout not expired after all: reusing the persisted transaction');
      return null;
    }
    return row.attempt + 1;
  }

  private async broadcast(input: PayoutActorInput): Promise<void> {
    try {
      await this.adapter(input.network).broadcastPayout(input.payout);
    } catch (error) {
      const classified = classifyPayoutError(error);
      if (needsOperator(classified)) {
        this.deps.logger.error(
          { err: error, withdrawalUuid: input.id, network: input.network, txHash: input.payout.txHash, attention: errorText(classified) },
          'payout needs an operator: its sequence number was used and the node does not know this transaction; the amount stays held (check the chain, then wait or reject)',
        );
      } else if (payoutExpired(classified)) {
        this.deps.logger.warn({ withdrawalUuid: input.id, network: input.network, txHash: input.payout.txHash }, 'payout too late to send: waiting for the chain to show it expired');
      } else {
        this.deps.logger.warn({ err: error, withdrawalUuid: input.id, txHash: input.payout.txHash }, 'payout broadcast failed');
      }
      throw classified;
    }
    this.deps.logger.info({ withdrawalUuid: input.id, network: input.network, txHash: input.payout.txHash }, 'payout broadcast');
    await this.killPoint('after_broadcast');
  }

  /**
   * Where the chain can replace a transaction (bumpPayout), the row is read first: it holds the
   * newest signed version, which a bump persisted before sending it (the actor may hold an older one
   * after a restart). A payout still pending `bumpAfterMs` after it was signed is replaced with the
   * same sequence and a higher fee; whichever version is mined counts. `expired` goes back to the
   * machine, which signs anew through sign() (under the row's lock).
   */
  private async check(input: PayoutActorInput): Promise<CheckPayoutOutput> {
    const adapter = this.adapter(input.network);
    const payout = adapter.bumpPayout ? ((await readPayoutRow(this.sql.query, input.id))?.payout ?? input.payout) : input.payout;
    const status = await adapter.payoutStatus(payout);
    const now = this.deps.clock.now();
    if (status.state === 'pending' && adapter.bumpPayout && this.stuck(payout, now)) {
      return { state: 'pending', at: now.toISOString(), payout: await this.bump(input, payout) };
    }
    return { ...status, at: now.toISOString(), ...(payout.txHash !== input.payout.txHash ? { payout } : {}) };
  }

  private stuck(payout: WithdrawalSignedPayout, now: Date): boolean {
    const signedAt = Number(payout.meta[HOST_META.signedAt]);
    return Number.isFinite(signedAt) && now.getTime() - signedAt >= (this.deps.bumpAfterMs ?? DEFAULT_BUMP_AFTER_MS);
  }

  /** Signs the replacement, persists it (compare-and-set on the newest version), then sends it. */
  private async bump(input: PayoutActorInput, payout: WithdrawalSignedPayout): Promise<WithdrawalSignedPayout> {
    const adapter = this.adapter(input.network);
    const replacement = await this.sql.transaction(async (q: Query) => {
      const row = await lockPayoutRow(q, input.id);
      const current = row?.payout;
      if (!row || !current) throw new Error(`withdrawal ${input.id} has no signed payout`);
      if (current.txHash !== payout.txHash) return current; // replaced meanwhile: that one stands
      let next: WithdrawalSignedPayout;
      try {
        // A bump keeps the sequence number by definition: the book keeps it reserved.
        const bumped = await adapter.bumpPayout!(payout);
        next = stamped({ ...bumped, wallet: bumped.wallet ?? current.wallet, sequence: bumped.sequence ?? current.sequence }, this.deps.clock.now());
      } catch (error) {
        throw classifyPayoutError(error);
      }
      // tx_hash follows once the status check hands the replacement to the actor (after its broadcast).
      await storeSignedPayout(q, input.id, next, row.attempt, this.deps.clock.now());
      this.deps.logger.warn({ withdrawalUuid: input.id, network: input.network, stuckTxHash: payout.txHash, txHash: next.txHash }, 'payout stuck: replacement with a higher fee signed and persisted');
      return next;
    });
    await adapter.broadcastPayout(replacement);
    this.deps.logger.info({ withdrawalUuid: input.id, network: input.network, txHash: replacement.txHash }, 'replacement payout broadcast');
    return replacement;
  }

  private async killPoint(point: PayoutKillPoint): Promise<void> {
    if (this.deps.killAt === point) await killAt(this.deps.logger, point);
  }
}

/**
 * The family's signed payout with the host's meta keys (HOST_META): when it was signed, its own hash,
 * and after an expiry the hashes of this payout's earlier transactions that can never execute.
 */
function stamped(payout: WithdrawalSignedPayout, now: Date, expired?: WithdrawalSignedPayout | null): WithdrawalSignedPayout {
  const earlier = expired ? [String(expired.meta[HOST_META.expired] ?? ''), expired.txHash].filter((h) => h.length > 0).join(',') : undefined;
  return {
    ...payout,
    meta: { ...payout.meta, [HOST_META.signedAt]: now.getTime(), [HOST_META.latest]: payout.txHash, ...(earlier !== undefined ? { [HOST_META.expired]: earlier } : {}) },
  };
}
