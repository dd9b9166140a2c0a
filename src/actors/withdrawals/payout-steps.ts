import { fromPromise } from 'xstate';
import type { MikroORM } from '@mikro-orm/postgresql';
import pino, { type Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import { ConflictError, DomainError, UnavailableError, ValidationError, type DomainErrorDetails } from '../../domain/errors';
import type { NetworkCode } from '../../domain/networks';
import { errorText, NEEDS_OPERATOR_CODES, needsOperator, type CheckPayoutOutput, type PayoutActorInput, type SignPayoutInput, type WithdrawalSignedPayout } from '../../domain/withdrawal-context';
import type { ChainAdapter, StoredNonceWallet } from '../../chains/types';
import { RawSql, type Query } from '../../store/raw-sql';
import { PayoutSlots } from './payout-slots';
import type { RequestLoad } from '../../lib/request-load';

/** Test hook (CHAINPAY_TEST_KILL_AT): SIGKILL the daemon at this point of a payout, once per process. */
export type PayoutKillPoint = 'after_sign' | 'after_broadcast';

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
  /** A payout still pending this long after it was signed is replaced with a higher fee (where the chain allows). */
  readonly bumpAfterMs?: number;
}

/** PAYOUT_BUMP_AFTER_MS default: 5 minutes. */
export const DEFAULT_BUMP_AFTER_MS = 5 * 60 * 1000;

/**
 * Adapter failures that make this signed transaction hopeless, so the withdrawal fails and its hold
 * is released: the transfer would revert, or the transaction is invalid (EVM adapter codes, read by
 * value so this module needs no chain SDK). Everything else is retried, except NEEDS_OPERATOR_CODES
 * (a nonce used by "another" transaction, as far as one node can tell): the withdrawal then waits
 * for an operator, never released on that signal alone.
 */
const PERMANENT_CODES = new Set(['payout_rejected', 'payout_invalid', 'invalid_address', 'invalid_amount', 'payout_insufficient_gas', 'payout_insufficient_token']);

/**
 * An adapter error -> the DomainError the withdrawal machine acts on, by its code. The adapter's
 * message (built from its structured details, no secret in it) is kept: it becomes the failed
 * withdrawal's failure_reason, so it must say what happened in words an operator can act on.
 */
function classify(error: unknown): unknown {
  if (error instanceof DomainError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(code);
  const details = plainDetails((error as { details?: unknown } | null)?.details);
  if (typeof code === 'string' && NEEDS_OPERATOR_CODES.includes(code)) return new ConflictError(code, message, undefined, details);
  if (typeof code === 'string' && PERMANENT_CODES.has(code)) return new ValidationError(code, message, undefined, details);
  return error;
}

/** The scalar entries of an adapter error's details (DomainErrorDetails holds nothing else). */
function plainDetails(details: unknown): DomainErrorDetails {
  if (details === null || typeof details !== 'object') return {};
  const out: DomainErrorDetails = {};
  for (const [k, v] of Object.entries(details)) {
    if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = v;
  }
  return out;
}

/**
 * The durable nonce book: the highest nonce among a wallet's stored signed payouts whose withdrawal
 * is open (any network: wallets are per chain). Committed rows only; the adapter's in-memory
 * reservations cover signatures whose row is not committed yet. Only `processing` rows are ever
 * signed and open (the status index keeps this cheap). Runs in the signing transaction (RawSql).
 */
export async function highestStoredNonce(q: Query, wallet: StoredNonceWallet): Promise<number | null> {
  const rows = await q<{ n: string | null }>(HIGHEST_STORED_NONCE, [wallet.from.toLowerCase(), String(wallet.chainId)], 'chainpay_payout_highest_nonce');
  return nonceOf(rows[0]?.n);
}

const HIGHEST_STORED_NONCE = `select max((signed_meta->>'nonce')::bigint)::text as n from withdrawals
      where status = 'processing' and open and signed_raw is not null and lower(signed_meta->>'from') = $1 and signed_meta->>'chainId' = $2`;

const nonceOf = (n: string | null | undefined): number | null => (n === null || n === undefined ? null : Number(n));

interface SignedRow {
  status: string;
  tx_hash: string | null;
  signed_raw: string | null;
  signed_meta: Record<string, string | number> | string | null;
}

/**
 * The three side effects of the withdrawal machine (domain/withdrawal-machine.ts). Invariant: a
 * payout is signed at most once. The signed transaction is written to the row, under the row's
 * lock, before signPayout resolves; a re-run (restart, retry) returns the stored one.
 */
export class PayoutSteps {
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly slots: PayoutSlots;
  private readonly sql: RawSql;

  constructor(private readonly deps: PayoutStepDeps) {
    this.slots = new PayoutSlots(deps.concurrency ?? 8, deps.requestLoad);
    this.sql = new RawSql(deps.orm);
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
    const signed = await this.sql.transaction(async (q) => {
      const rows = await q<SignedRow>('select status, tx_hash, signed_raw, signed_meta from withdrawals where uuid = $1 for update', [input.id], 'chainpay_payout_lock_signed');
      const row = rows[0];
      if (!row) throw new Error(`withdrawal ${input.id} has no row`);
      const stored = storedPayout(row);
      if (stored) {
        this.deps.logger.info({ withdrawalUuid: input.id, txHash: stored.txHash }, 'payout already signed: reusing the persisted transaction');
        return stored;
      }
      if (row.status !== 'processing') throw new UnavailableError('withdrawal_not_processing', `withdrawal ${input.id} is ${row.status}`);
      let payout: WithdrawalSignedPayout;
      try {
        const storedNonces = (wallet: StoredNonceWallet) => highestStoredNonce(q, wallet);
        payout = stamped(await this.adapter(input.network).signPayout({ id: input.id, to: input.to, amount: input.amount, storedNonces }), this.deps.clock.now());
      } catch (error) {
        const classified = classify(error);
        // Retried (not failed): say why, so an operator can act (e.g. a TRON hot wallet short of TRX or USDT).
        if (!(classified instanceof DomainError)) {
          this.deps.logger.warn({ err: error, withdrawalUuid: input.id, network: input.network, attention: errorText(error) }, 'payout not signed yet: retried after the poll interval');
        }
        throw classified;
      }
      // tx_hash stays null until the broadcast (the actor's commit sets it); the signed hash is in signed_meta.
      await q(
        'update withdrawals set signed_raw = $1, signed_meta = $2::jsonb, updated_at = $3::timestamptz where uuid = $4',
        [payout.raw, JSON.stringify(payout.meta), this.deps.clock.now().toISOString(), input.id],
        'chainpay_payout_store_signed',
      );
      this.deps.logger.info({ withdrawalUuid: input.id, network: input.network, txHash: payout.txHash }, 'payout signed and persisted');
      return payout;
    });
    await this.killPoint('after_sign');
    return signed;
  }

  private async broadcast(input: PayoutActorInput): Promise<void> {
    try {
      await this.adapter(input.network).broadcastPayout(input.payout);
    } catch (error) {
      const classified = classify(error);
      if (needsOperator(classified)) {
        this.deps.logger.error(
          { err: error, withdrawalUuid: input.id, network: input.network, txHash: input.payout.txHash, attention: errorText(classified) },
          'payout needs an operator: its nonce was used and the node does not know this transaction; the amount stays held (check the chain, then wait or reject)',
        );
      } else {
        this.deps.logger.warn({ err: error, withdrawalUuid: input.id, txHash: input.payout.txHash }, 'payout broadcast failed');
      }
      throw classified;
    }
    this.deps.logger.info({ withdrawalUuid: input.id, network: input.network, txHash: input.payout.txHash }, 'payout broadcast');
    await this.killPoint('after_broadcast');
  }

  /**
   * Where the chain can replace a transaction (EVM), the row is read first: it holds the newest
   * signed version, which a bump persisted before sending it (the actor may hold an older one after
   * a restart). A payout still pending `bumpAfterMs` after it was signed is replaced with the same
   * nonce and a higher fee; whichever version is mined counts.
   */
  private async check(input: PayoutActorInput): Promise<CheckPayoutOutput> {
    const adapter = this.adapter(input.network);
    const payout = adapter.bumpPayout ? ((await this.stored(input.id)) ?? input.payout) : input.payout;
    const status = await adapter.payoutStatus(payout);
    const now = this.deps.clock.now();
    if (status.state === 'pending' && adapter.bumpPayout && this.stuck(payout, now)) {
      return { state: 'pending', at: now.toISOString(), payout: await this.bump(input, payout) };
    }
    return { ...status, at: now.toISOString(), ...(payout.txHash !== input.payout.txHash ? { payout } : {}) };
  }

  private stuck(payout: WithdrawalSignedPayout, now: Date): boolean {
    const signedAt = Number(payout.meta[SIGNED_AT]);
    return Number.isFinite(signedAt) && now.getTime() - signedAt >= (this.deps.bumpAfterMs ?? DEFAULT_BUMP_AFTER_MS);
  }

  private async stored(uuid: string): Promise<WithdrawalSignedPayout | null> {
    const rows = await this.deps.orm.em.fork().execute<SignedRow[]>('select status, tx_hash, signed_raw, signed_meta from withdrawals where uuid = ?', [uuid]);
    return rows[0] ? storedPayout(rows[0]) : null;
  }

  /** Signs the replacement, persists it (compare-and-set on the newest version), then sends it. */
  private async bump(input: PayoutActorInput, payout: WithdrawalSignedPayout): Promise<WithdrawalSignedPayout> {
    const adapter = this.adapter(input.network);
    const replacement = await this.deps.orm.em.fork().transactional(async (em) => {
      const rows = await em.execute<SignedRow[]>('select status, tx_hash, signed_raw, signed_meta from withdrawals where uuid = ? for update', [input.id]);
      const current = rows[0] ? storedPayout(rows[0]) : null;
      if (!current) throw new Error(`withdrawal ${input.id} has no signed payout`);
      if (current.txHash !== payout.txHash) return current; // replaced meanwhile: that one stands
      let next: WithdrawalSignedPayout;
      try {
        next = stamped(await adapter.bumpPayout!(payout), this.deps.clock.now());
      } catch (error) {
        throw classify(error);
      }
      // tx_hash follows once the status check hands the replacement to the actor (after its broadcast).
      await em.execute('update withdrawals set signed_raw = ?, signed_meta = ?::jsonb, updated_at = ? where uuid = ?', [next.raw, JSON.stringify(next.meta), this.deps.clock.now(), input.id]);
      this.deps.logger.warn({ withdrawalUuid: input.id, network: input.network, stuckTxHash: payout.txHash, txHash: next.txHash }, 'payout stuck: replacement with a higher fee signed and persisted');
      return next;
    });
    await adapter.broadcastPayout(replacement);
    this.deps.logger.info({ withdrawalUuid: input.id, network: input.network, txHash: replacement.txHash }, 'replacement payout broadcast');
    return replacement;
  }

  /** Never resolves when it fires: nothing after this point may run before the kill. */
  private async killPoint(point: PayoutKillPoint): Promise<void> {
    if (this.deps.killAt !== point) return;
    this.deps.logger.warn({ point }, 'CHAINPAY_TEST_KILL_AT reached: killing the daemon');
    // Buffered log lines would die with the process (tests read them): write them out first.
    // sonic-boom's flushSync writes what is queued but skips (or refuses during) an async write
    // already under way, which SIGKILL would cut off: retried until no write is under way, for up
    // to 10 s. Nothing else of this payout runs meanwhile: the step holds its payout slot.
    type Destination = { flushSync?: () => void; _writing?: boolean };
    const stream = (this.deps.logger as unknown as Record<symbol, Destination | undefined>)[pino.symbols.streamSym];
    for (let attempt = 0; attempt < 1000; attempt++) {
      try {
        stream?.flushSync?.();
        if (!stream?._writing) break;
      } catch {
        // under way: try again shortly
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    process.kill(process.pid, 'SIGKILL');
    await new Promise<never>(() => undefined);
  }
}

/**
 * Meta keys chainpay adds to an adapter's signed payout: when it was signed, and its own hash. The
 * row's tx_hash is null until broadcast, then the version that counts (which may be an older one
 * that was mined); the newest signed version is only ever read from signed_meta.
 */
const SIGNED_AT = 'signed_at_ms';
const LATEST = 'latest_tx_hash';

function stamped(payout: WithdrawalSignedPayout, now: Date): WithdrawalSignedPayout {
  return { ...payout, meta: { ...payout.meta, [SIGNED_AT]: now.getTime(), [LATEST]: payout.txHash } };
}

/** The newest signed version on the row, or null before signing. */
function storedPayout(row: SignedRow): WithdrawalSignedPayout | null {
  if (row.signed_raw === null) return null;
  const meta = (typeof row.signed_meta === 'string' ? JSON.parse(row.signed_meta) : (row.signed_meta ?? {})) as Record<string, string | number>;
  const txHash = typeof meta[LATEST] === 'string' ? meta[LATEST] : row.tx_hash;
  // Never treated as unsigned (that would sign a second transaction): a stored raw without a hash is a bug.
  if (txHash === null) throw new Error('a signed payout is stored without its hash');
  return { txHash, raw: row.signed_raw, meta };
}

/** CHAINPAY_TEST_KILL_AT=after_sign|after_broadcast (crash tests); anything else: no hook. */
export function killPointFromEnv(value: string | undefined): PayoutKillPoint | undefined {
  return value === 'after_sign' || value === 'after_broadcast' ? value : undefined;
}
