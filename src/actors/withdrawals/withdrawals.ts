import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import { flatUuid } from '../flat-uuid';
import { formatAmount, toDecimal } from '../../domain/decimal';
import { MalformedRequestError, NotFoundError, ValidationError } from '../../domain/errors';
import type { NetworkCode, NetworkSettings } from '../../domain/networks';
import { createWithdrawalContext } from '../../domain/withdrawal-context';
import type { ChainAdapter } from '../../chains/types';
import { Withdrawal, type OutboxEvent } from '../../store/entities';
import { RawSql, type Query } from '../../store/raw-sql';
import { merchantBalance, postJournalsSql, type JournalInput } from '../../store/repos/ledger';
import { announceOutboxEvents, withdrawalEvents } from '../../webhooks/outbox';
import { CAP_WINDOW_MS, needsReview } from './caps';
import type { BatchOutcome } from '../keyed-batches';
import { GroupedBatches, type KeyGroup } from '../grouped-batches';
import { insertWithdrawals, lockMerchantsCaps, readUnderLock, type MerchantCaps, type UnderLock } from './creation-sql';
import type { WithdrawalActors } from './withdrawal-actors';
import { holdLines, holdReference } from './withdrawal-ledger';
import { parseCreateWithdrawal, parseReference, type CreateWithdrawalInput } from './withdrawal-request';
import { checkPayeeAccount } from './payee-account';
import { decideReview, type ReviewEvent } from './review-decision';
import { AddressForms, type Whitelist } from './whitelist';
import { RequestLoad } from '../../lib/request-load';
import { CHECK_VIOLATION, rolledBack, sqlState, UNIQUE_VIOLATION } from './sql-outcome';

export { rolledBack, sqlState } from './sql-outcome';

export interface WithdrawalsDeps {
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly actors: WithdrawalActors;
  readonly adapters: ReadonlyMap<NetworkCode, ChainAdapter>;
  readonly whitelist: Whitelist;
  /** The daemon's mode, carried by every withdrawal webhook (`livemode`). */
  readonly livemode: boolean;
  /** Test hook: runs in the creating transaction, under the merchant's lock, before the new rows are inserted. */
  readonly beforeInsert?: (q: Query, rows: readonly Withdrawal[]) => Promise<void>;
  /** Wait between payout status polls (and before retrying a transient failure). */
  readonly pollIntervalMs: number;
  /** Counts each creation as a request in flight (payout steps yield to it). */
  readonly requestLoad?: RequestLoad;
}

export interface ListWithdrawalsFilter {
  readonly merchantId: string | null;
  readonly status: string | null;
  readonly limit: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const REJECTION_REASON_MAX = 500;

function insufficient(amount: string, available: string): ValidationError {
  return new ValidationError('insufficient_balance', `the available balance (${available}) does not cover ${amount}`, 'amount', { available });
}

/** Withdrawals committed together at most, all merchants of a run together (bounded statement size). */
export const WITHDRAWAL_BATCH_MAX = 200;

type Created = { row: Withdrawal; created: boolean; snapshot: unknown };
/** Inside the creating transaction: created, or a reference already stored (`stored`: its uuid, loaded after COMMIT). */
type LockedOutcome = BatchOutcome<Created | { stored: string }>;
/** What the creating transaction did: per merchant group, one outcome per input; and the outbox events it wrote. */
type LockedBatch = { outcomes: LockedOutcome[][]; events: OutboxEvent[] };
type MerchantGroup = KeyGroup<CreateWithdrawalInput>;

/** Creating withdrawals (hold + row + first state in one transaction), reading them, and the review decisions. */
export class Withdrawals {
  private readonly batches = new GroupedBatches<CreateWithdrawalInput, Created>((groups) => this.createGroups(groups), WITHDRAWAL_BATCH_MAX);
  private readonly sql: RawSql;
  private readonly createdLog: Logger;
  private readonly addresses: AddressForms;

  /** Creations in flight (deps.requestLoad, the daemon's; a private one when none is given). */
  private readonly requestLoad: RequestLoad;

  constructor(private readonly deps: WithdrawalsDeps) {
    this.requestLoad = deps.requestLoad ?? new RequestLoad();
    this.sql = new RawSql(deps.orm);
    this.addresses = new AddressForms(deps.adapters);

    // One line per request of ids, a status and an amount, never a secret: no redaction pass (it
    // cost ~4x the line itself, measured).
    this.createdLog = deps.logger.child({}, { redact: [] });
  }

  /**
   * Every refusal happens before or inside the creating transaction, so a refused request leaves
   * nothing stored and nothing held. Per merchant, creations are serialized: in memory (a merchant's
   * concurrent requests are committed together, in arrival order, and with those of the other
   * merchants that arrived in the same turn: see GroupedBatches) and in the database by a row lock
   * on the merchant, under which the rolling daily sum and the balance are read and the holds are
   * booked. Counted as a request in flight while it runs: payout steps
   * yield to it (RequestLoad). `requestId`: the gateway's, put on this call's log line.
   */
  create(merchantId: string, body: Record<string, unknown>, active: readonly NetworkSettings[], requestId?: string): Promise<{ row: Withdrawal; created: boolean }> {
    return this.requestLoad.around(() => this.createCounted(merchantId, body, active, requestId));
  }

  private async createCounted(
    requestedMerchant: string,
    body: Record<string, unknown>,
    active: readonly NetworkSettings[],
    requestId: string | undefined,
  ): Promise<{ row: Withdrawal; created: boolean }> {
    if (!UUID.test(requestedMerchant)) throw new NotFoundError('merchant', requestedMerchant);
    // One spelling per merchant: the batch key, the rows and the ledger accounts
    // (merchant:<id>:available, whose balance the hold moves) all use PostgreSQL's text form of the
    // uuid. gRPC auth lower-cases x-merchant-id already; this guards every other caller, since a
    // hold booked on an account the balance update does not recognize could overdraw.
    const merchantId = requestedMerchant.toLowerCase();
    const reference = parseReference(body);
    let input: CreateWithdrawalInput;
    try {
      input = parseCreateWithdrawal(
        body,
        active,
        (network, address) => this.addresses.isValid(network.code, address),
        (network, address) => this.deps.adapters.get(network.code)?.payeeRefusal?.(address) ?? null,
      );
      await checkPayeeAccount(this.deps.adapters.get(input.network.code), input.network.code, input.address, 'withdrawal', this.deps.logger);
    } catch (err) {
      // A repeat answers with the original whatever its body says now, so a body refused here may
      // still name a reference already used (the entity is loaded only for such a repeat).
      const known = reference === null ? null : await this.byReference(merchantId, reference);
      if (known) return { row: known, created: false };
      throw err;
    }
    // PostgreSQL refuses text with a NUL character (SQLSTATE 22021): such a reference fails here,
    // alone, as its lookup always did, rather than in the batch it would share with other requests.
    if (reference?.includes('\u0000')) await this.byReference(merchantId, reference);
    // Everything else is judged under the merchant's lock, in the order a lone request would meet
    // it: a known reference answers with its withdrawal, then the whitelist, then the balance.
    const result = await this.batches.submit(merchantId, input);
    if (result.created) {
      this.createdLog.info(
        { withdrawalUuid: result.row.uuid, merchantId, reference: input.reference ?? undefined, network: input.network.code, amount: input.amount, status: result.row.status, requestId },
        'withdrawal created',
      );
    }
    return { row: result.row, created: result.created };
  }

  /**
   * One transaction for the whole run: every merchant's inputs, each merchant locked (in id order).
   * Should it fail as a whole with an error that proves it was rolled back (a race with another
   * daemon on a reference, the balance check, a serialization failure or deadlock: see rolledBack),
   * each merchant is retried in a transaction of its own, and within a merchant each input, so
   * every caller gets the answer it would have got alone. Any other error (a connection lost
   * during COMMIT, say) leaves it unknown whether the run committed: re-creating its inputs could
   * hold and pay them twice, so every caller gets that error (internal) and nothing is retried.
   */
  private async createGroups(groups: readonly MerchantGroup[]): Promise<BatchOutcome<Created>[][]> {
    if (groups.length > 1 || groups[0]!.inputs.length > 1) {
      let locked: LockedBatch | undefined;
      const size = groups.reduce((n, g) => n + g.inputs.length, 0);
      try {
        locked = await this.sql.transaction((q) => this.createLocked(q, groups));
      } catch (err) {
        if (!rolledBack(err)) {
          this.deps.logger.error({ err, merchants: groups.length, size }, 'withdrawal batch failed and may have committed; not retried');
          return groups.map((g) => g.inputs.map(() => ({ ok: false, error: err })));
        }
        this.deps.logger.warn({ err, merchants: groups.length, size }, 'withdrawal batch rolled back; creating per merchant, then one by one');
      }
      if (locked) return this.committed(groups, locked);
      if (groups.length > 1) return Promise.all(groups.map(async (g) => (await this.createGroups([g]))[0]!));
    }
    const group = groups[0]!;
    const outcomes: BatchOutcome<Created>[] = [];
    for (const input of group.inputs) {
      try {
        outcomes.push({ ok: true, value: await this.createOne(group.key, input) });
      } catch (error) {
        outcomes.push({ ok: false, error });
      }
    }
    return [outcomes];
  }

  private async createOne(merchantId: string, input: CreateWithdrawalInput): Promise<Created> {
    const groups = [{ key: merchantId, inputs: [input] }];
    let locked: LockedBatch;
    try {
      locked = await this.sql.transaction((q) => this.createLocked(q, groups));
    } catch (err) {
      if (sqlState(err) === CHECK_VIOLATION) {
        const b = await merchantBalance(this.deps.orm.em.fork(), merchantId);
        throw insufficient(input.amount, b.available);
      }
      // A concurrent request with the same reference won: answer with that withdrawal (200).
      if (sqlState(err) === UNIQUE_VIOLATION && input.reference !== null) {
        const existing = await this.byReference(merchantId, input.reference);
        if (existing) return { row: existing, created: false, snapshot: null };
      }
      throw err;
    }
    const [[outcome]] = (await this.committed(groups, locked)) as [[BatchOutcome<Created>]];
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  /**
   * After COMMIT: actors start for the rows created (first, whatever happens next), then a
   * reference found already stored answers with that withdrawal as stored now (loaded only for
   * such repeats; a failure to load it fails that caller alone).
   */
  private async committed(groups: readonly MerchantGroup[], locked: LockedBatch): Promise<BatchOutcome<Created>[][]> {
    for (const outcomes of locked.outcomes) for (const o of outcomes) if (o.ok && 'row' in o.value && o.value.created) this.deps.actors.adopt(o.value.row.uuid, o.value.snapshot);
    announceOutboxEvents(this.deps.orm, locked.events);
    return Promise.all(
      locked.outcomes.map((outcomes, k) =>
        Promise.all(
          outcomes.map(async (o): Promise<BatchOutcome<Created>> => {
            if (!o.ok || 'row' in o.value) return o as BatchOutcome<Created>;
            try {
              return { ok: true, value: { row: await this.get(o.value.stored, groups[k]!.key), created: false, snapshot: null } };
            } catch (error) {
              return { ok: false, error };
            }
          }),
        ),
      ),
    );
  }

  /**
   * Under the merchants' locks, one read of what is judged for all of them, then each merchant's
   * inputs in order (judge); the rows of every merchant are inserted by one statement and their
   * holds booked by one more. The check constraint still guards each final balance. Raw SQL on one
   * connection (creation-sql.ts).
   */
  private async createLocked(q: Query, groups: readonly MerchantGroup[]): Promise<LockedBatch> {
    const caps = await lockMerchantsCaps(
      q,
      groups.map((g) => g.key),
    );
    const locked = groups.filter((g) => caps.has(g.key)).map((g) => g.key);
    const now = this.deps.clock.now();
    const references = groups.flatMap((g) => g.inputs.map((i) => i.reference).filter((r): r is string => r !== null));
    // Read after the locks were granted: this statement sees every withdrawal, balance change and
    // whitelist change (add/remove take the same lock) committed before it.
    const states = locked.length === 0 ? new Map<string, UnderLock>() : await readUnderLock(q, locked, new Date(now.getTime() - CAP_WINDOW_MS), references);
    const rows: Withdrawal[] = [];
    const snapshots: string[] = [];
    const holds: JournalInput[] = [];
    const outcomes = groups.map((g) => this.judge(g, caps.get(g.key), states.get(g.key), now, { rows, snapshots, holds }));
    if (rows.length === 0) return { outcomes, events: [] };
    await this.deps.beforeInsert?.(q, rows);
    const events = rows.flatMap((row) => withdrawalEvents(row, [`withdrawal.${row.status}`], now, this.deps));
    await insertWithdrawals(q, rows, snapshots, events);
    // The check constraint (available >= 0) makes an overdraw fail here, atomically, whatever raced.
    await postJournalsSql(q, holds, now);
    return { outcomes, events };
  }

  /**
   * One merchant's inputs in order, against what was read under its lock: a known reference
   * answers with its withdrawal, one the balance left by the earlier inputs cannot cover is refused
   * (and books nothing), the rest become rows (appended to `into`) with their holds. An unknown
   * merchant (no caps: no row to lock) has no whitelist: each input is refused as not whitelisted
   * (422), as the whitelist check answers it.
   */
  private judge(
    group: MerchantGroup,
    caps: MerchantCaps | undefined,
    state: UnderLock | undefined,
    now: Date,
    into: { rows: Withdrawal[]; snapshots: string[]; holds: JournalInput[] },
  ): LockedOutcome[] {
    if (!caps || !state) return group.inputs.map((input) => ({ ok: false, error: this.deps.whitelist.judge([], now)(input.network, input.address) }));
    const merchantId = group.key;
    const whitelistRefusal = this.deps.whitelist.judge(state.whitelist, now);
    const whitelistMemo = this.deps.whitelist.memos(state.whitelist);
    const known = new Map<string, { stored: string } | Withdrawal>();
    for (const [reference, uuid] of state.known) known.set(reference, { stored: uuid });
    let used = toDecimal(state.used);
    let available = toDecimal(state.available);
    const outcomes: LockedOutcome[] = [];
    for (const input of group.inputs) {
      const existing = input.reference === null ? undefined : known.get(input.reference);
      if (existing) {
        outcomes.push({ ok: true, value: existing instanceof Withdrawal ? { row: existing, created: false, snapshot: null } : existing });
        continue;
      }
      const refused = whitelistRefusal(input.network, input.address);
      if (refused) {
        outcomes.push({ ok: false, error: refused });
        continue;
      }
      const amount = toDecimal(input.amount);
      if (available.lessThan(amount)) {
        outcomes.push({ ok: false, error: insufficient(input.amount, formatAmount(available)) });
        continue;
      }
      const review = needsReview({ amount: input.amount, perWithdrawal: caps.perWithdrawal, daily: caps.daily, usedLast24h: formatAmount(used) });
      available = available.minus(amount);
      used = used.plus(amount);
      const { row, snapshot, snapshotJson } = this.newWithdrawal(merchantId, input, review, now);
      // Its own memo, else its whitelist entry's (TON only: entries elsewhere carry none).
      row.memo = input.memo ?? whitelistMemo(input.network, input.address);
      into.rows.push(row);
      into.snapshots.push(snapshotJson);
      if (input.reference !== null) known.set(input.reference, row);
      into.holds.push({ reference: holdReference(row.uuid), kind: 'withdrawal_hold', lines: holdLines(merchantId, input.amount) });
      outcomes.push({ ok: true, value: { row, created: true, snapshot } });
    }
    return outcomes;
  }

  private newWithdrawal(merchantId: string, input: CreateWithdrawalInput, review: boolean, now: Date): { row: Withdrawal; snapshot: unknown; snapshotJson: string } {
    const uuid = flatUuid();
    const network = input.network;
    const context = createWithdrawalContext({
      uuid,
      network: network.code,
      address: input.address,
      netPayout: input.netPayout,
      requiredConfirmations: network.requiredConfirmations,
      review,
      pollIntervalMs: this.deps.pollIntervalMs,
    });
    const snapshotJson = this.deps.actors.initialSnapshotJson(context);
    const snapshot = JSON.parse(snapshotJson) as unknown;
    const row = new Withdrawal(uuid, merchantId, context.status, network.code, input.address, input.amount, input.networkFee, input.netPayout, now);
    row.reference = input.reference;
    row.actorSnapshot = snapshot;
    return { row, snapshot, snapshotJson };
  }

  /** The merchant's withdrawal with this reference, as stored now (one prepared statement; the entity loaded only if it exists). */
  private async byReference(merchantId: string, reference: string): Promise<Withdrawal | null> {
    const known = await this.sql.query<{ uuid: string }>('select uuid from withdrawals where merchant_id = $1 and reference = $2', [merchantId, reference], 'chainpay_withdrawal_by_reference');
    return known[0] ? this.get(known[0].uuid, merchantId) : null;
  }

  async get(uuid: string, merchantId: string | null): Promise<Withdrawal> {
    if (!UUID.test(uuid)) throw new NotFoundError('withdrawal', uuid);
    const row = await this.deps.orm.em.fork().findOne(Withdrawal, merchantId ? { uuid, merchantId } : { uuid });
    if (!row) throw new NotFoundError('withdrawal', uuid);
    return row;
  }

  async list(filter: ListWithdrawalsFilter): Promise<Withdrawal[]> {
    const where: Record<string, unknown> = {};
    if (filter.merchantId) {
      if (!UUID.test(filter.merchantId)) return [];
      where.merchantId = filter.merchantId;
    }
    if (filter.status) where.status = filter.status;
    const limit = Math.min(Math.max(filter.limit || 100, 1), 1000);
    return this.deps.orm.em.fork().find(Withdrawal, where, { orderBy: { createdAt: 'desc', uuid: 'asc' }, limit });
  }

  /** review -> processing (payout starts once committed); audited. 409 unless in review. */
  async approve(uuid: string, actor: string): Promise<Withdrawal> {
    await this.decide(uuid, actor, 'withdrawal.approve', { type: 'APPROVE' });
    return this.get(uuid, null);
  }

  /** review -> rejected with the operator's reason; the hold returns to the available balance. */
  async reject(uuid: string, reason: string, actor: string): Promise<Withdrawal> {
    const trimmed = reason.trim();
    if (trimmed === '') throw new MalformedRequestError('reason is required', 'reason', 'missing_field');
    if (trimmed.length > REJECTION_REASON_MAX) throw new ValidationError('invalid_reason', `reason is at most ${REJECTION_REASON_MAX} characters`, 'reason');
    await this.decide(uuid, actor, 'withdrawal.reject', { type: 'REJECT', reason: trimmed });
    return this.get(uuid, null);
  }

  private async decide(uuid: string, actor: string, action: string, event: ReviewEvent): Promise<void> {
    await decideReview({ actors: this.deps.actors, clock: this.deps.clock, logger: this.deps.logger }, await this.get(uuid, null), actor, action, event);
  }
}
