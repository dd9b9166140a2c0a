import { EventEmitter } from 'node:events';
import { createActor, type Actor, type Snapshot } from 'xstate';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import type { NetworkCode } from '../../domain/networks';
import { withdrawalMachine, type WithdrawalMachineEvent } from '../../domain/withdrawal-machine';
import type { WithdrawalMachineContext } from '../../domain/withdrawal-context';
import type { ChainAdapter } from '../../chains/types';
import type { Withdrawal, OutboxEvent } from '../../store/entities';
import { RawSql, type Query } from '../../store/raw-sql';
import { announceOutboxEvents, insertOutboxEventsSql, withdrawalEvents } from '../../webhooks/outbox';
import { PayoutSteps, type PayoutKillPoint } from './payout-steps';
import { bookOutcomeSql } from './withdrawal-ledger';
import type { RequestLoad } from '../../lib/request-load';
import { ActorActivity } from '../introspection/activity';
import { PLACEHOLDER, persistedInitialSnapshot, SNAPSHOT_TEMPLATES_MAX, snapshotTemplate } from './initial-snapshot';
import { LOCK_ROW, type LockedRow, withdrawalOf } from './locked-row';

export { persistedInitialSnapshot } from './initial-snapshot';

type WithdrawalActor = Actor<typeof withdrawalMachine>;

/** failure_reason of a withdrawal that waits for an operator (processing.needsOperator). */
export const NEEDS_OPERATOR_PREFIX = 'needs_operator: ';

/** Extra writes that belong in the same transaction as the actor's new state (audit, checks), on its connection. */
export type WithdrawalWork = (q: Query, row: Withdrawal) => Promise<void>;

export interface WithdrawalUpdate {
  readonly uuid: string;
  readonly status: string;
}

export interface WithdrawalActorsDeps {
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly adapters: ReadonlyMap<NetworkCode, ChainAdapter>;
  /** The daemon's mode, carried by every withdrawal webhook (`livemode`). */
  readonly livemode: boolean;
  readonly killAt?: PayoutKillPoint;
  /** Payout steps running at once (PayoutSlots). */
  readonly concurrency?: number;
  /** Merchant requests in flight: payout steps narrow to one while there are any (PayoutSlots). */
  readonly requestLoad?: RequestLoad;
  /** Stuck-payout fee bump threshold (PayoutSteps). */
  readonly bumpAfterMs?: number;
}

/** A committed change of the row's status: what its log line names. */
interface StatusChange {
  readonly merchantId: string;
  readonly network: string;
  readonly previousStatus: string;
  readonly txHash: string | null;
  readonly failureReason: string | null;
}

interface Entry {
  actor: WithdrawalActor;
  queue: Promise<void>;
  /** What was last committed: comparison key and the persisted snapshot to roll back to. */
  persistedKey: string;
  persistedSnapshot: unknown;
  watching: boolean;
}

const RESTORE_BATCH = 500;

/** A poll that found nothing new (waiting → checking → waiting) is not worth a write. */
function stateKey(actor: WithdrawalActor): string {
  const s = actor.getSnapshot();
  return JSON.stringify({ v: s.value, c: s.context }).replace('"checking"', '"waiting"');
}

/**
 * One XState actor per open withdrawal. Invariants (as InvoiceActors):
 * - every change is committed with the row, its ledger journal and its outbox event in ONE
 *   transaction (the row is the truth; the snapshot exists to resume);
 * - changes of one withdrawal are applied one at a time (a per-withdrawal queue);
 * - a failed commit rebuilds the actor from the last committed snapshot.
 * Payout side effects run in PayoutSteps, which persists the signed transaction itself.
 */
export class WithdrawalActors {
  private readonly entries = new Map<string, Entry>();
  private readonly steps: PayoutSteps;
  private readonly machine;
  private readonly sql: RawSql;
  /** initialSnapshotJson's templates by context shape; null: that shape is computed every time. */
  private readonly snapshotTemplates = new Map<string, string[] | null>();
  /** Emits `update` with a WithdrawalUpdate after each commit. */
  readonly updates = new EventEmitter();
  /** Operator introspection: what each actor received and committed (last few + live feed). */
  readonly activity: ActorActivity;

  constructor(private readonly deps: WithdrawalActorsDeps) {
    this.updates.setMaxListeners(0);
    this.activity = new ActorActivity('withdrawal', () => deps.clock.now());
    this.steps = new PayoutSteps({ ...deps, settled: (uuid) => this.settled(uuid) });
    this.machine = withdrawalMachine.provide({ actors: this.steps.actors() });
    this.sql = new RawSql(deps.orm);
  }

  size(): number {
    return this.entries.size;
  }

  has(uuid: string): boolean {
    return this.entries.has(uuid);
  }

  uuids(): IterableIterator<string> {
    return this.entries.keys();
  }

  context(uuid: string): WithdrawalMachineContext | undefined {
    return this.entries.get(uuid)?.actor.getSnapshot().context;
  }

  snapshot(uuid: string): ReturnType<WithdrawalActor['getSnapshot']> | undefined {
    return this.entries.get(uuid)?.actor.getSnapshot();
  }

  /** The snapshot a new withdrawal is stored with (pure: nothing is signed or sent). */
  initialSnapshot(context: WithdrawalMachineContext): unknown {
    return JSON.parse(this.initialSnapshotJson(context)) as unknown;
  }

  /**
   * initialSnapshot as JSON text (what the row stores). Computed with a real actor once per shape
   * of context (everything but uuid, address and netPayout: network, status, confirmations, poll
   * interval...); for each withdrawal its own three values are put where the actor put the
   * placeholders. Sound because the machine's first step (created -> review | processing.signing,
   * with the sign step's input) only copies those three values and never branches on them;
   * initialSnapshots.test.ts compares the result with a real actor's for many inputs.
   */
  initialSnapshotJson(context: WithdrawalMachineContext): string {
    const key = JSON.stringify({ ...context, uuid: PLACEHOLDER.uuid, address: PLACEHOLDER.address, netPayout: PLACEHOLDER.netPayout });
    let template = this.snapshotTemplates.get(key);
    if (template === undefined) {
      template = snapshotTemplate(persistedInitialSnapshot({ ...context, ...PLACEHOLDER }, this.deps.clock));
      if (this.snapshotTemplates.size >= SNAPSHOT_TEMPLATES_MAX) this.snapshotTemplates.clear();
      this.snapshotTemplates.set(key, template);
    }
    if (template === null) return JSON.stringify(persistedInitialSnapshot(context, this.deps.clock));
    let json = template[0]!;
    for (let i = 1; i < template.length; i += 2) json += JSON.stringify(context[template[i] as keyof typeof PLACEHOLDER]) + template[i + 1]!;
    return json;
  }

  /** After the creating transaction committed: run the withdrawal from its stored snapshot. */
  adopt(uuid: string, snapshot: unknown): void {
    this.start(uuid, snapshot);
  }

  /** Rehydrate every open withdrawal; a pending sign/broadcast/check step re-runs by itself. */
  async restoreAll(): Promise<number> {
    let after = '00000000-0000-0000-0000-000000000000';
    let count = 0;
    for (;;) {
      const rows = await this.deps.orm.em
        .fork()
        .execute<{ uuid: string; actor_snapshot: unknown }[]>('select uuid, actor_snapshot from withdrawals where open and uuid > ? order by uuid limit ?', [after, RESTORE_BATCH]);
      for (const row of rows) {
        const snapshot = typeof row.actor_snapshot === 'string' ? JSON.parse(row.actor_snapshot) : row.actor_snapshot;
        this.start(row.uuid, snapshot);
        count++;
      }
      if (rows.length < RESTORE_BATCH) break;
      after = rows[rows.length - 1]!.uuid;
    }
    return count;
  }

  /** `after` timers are not persisted: a restored actor that was waiting polls (or retries) now. */
  async resumeAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((uuid) => this.send(uuid, { type: 'RESUME' })));
  }

  /**
   * Deliver one event and commit the result (plus `work`) in one transaction. Resolves once
   * committed; rejects (and rolls the actor back) when the commit fails. A throwing
   * `precondition` rejects before the event is delivered.
   */
  send(uuid: string, event: WithdrawalMachineEvent, work?: WithdrawalWork, precondition?: (ctx: WithdrawalMachineContext) => void): Promise<void> {
    const entry = this.entries.get(uuid);
    if (!entry) return Promise.reject(new Error(`no open withdrawal actor ${uuid}`));
    const run = async (): Promise<void> => {
      if (this.entries.get(uuid) !== entry) throw new Error(`withdrawal actor ${uuid} was closed or rebuilt`);
      // Checked in turn, after earlier queued changes: a refusal here changes nothing.
      precondition?.(entry.actor.getSnapshot().context);
      this.activity.record(uuid, entry.actor.getSnapshot().context.network, event.type, event);
      entry.watching = false; // this change is committed below, not by the subscription
      try {
        entry.actor.send(event);
      } finally {
        entry.watching = true;
      }
      await this.commit(uuid, entry, work);
    };
    const next = entry.queue.then(run, run);
    entry.queue = next.catch(() => undefined);
    return next;
  }

  /** Resolves when the commits queued for this withdrawal so far are done. */
  async settled(uuid: string): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    for (;;) {
      const entry = this.entries.get(uuid);
      if (!entry) return;
      const queue = entry.queue;
      await queue;
      if (this.entries.get(uuid)?.queue === queue) return;
    }
  }

  private start(uuid: string, persisted: unknown): void {
    const snapshot = persisted as Snapshot<unknown> & { context: WithdrawalMachineContext };
    const actor = createActor(this.machine, { snapshot, input: snapshot.context, clock: this.deps.clock });
    const entry: Entry = { actor, queue: Promise.resolve(), persistedKey: '', persistedSnapshot: persisted, watching: true };
    this.entries.set(uuid, entry);
    this.watch(uuid, entry);
    actor.start();
    entry.persistedKey = stateKey(actor);
  }

  /** Changes made by the payout steps (signed, sent, confirmed) are committed through the queue. */
  private watch(uuid: string, entry: Entry): void {
    entry.actor.subscribe({
      next: () => {
        if (!entry.watching || entry.persistedKey === '') return;
        const run = (): Promise<void> => this.commit(uuid, entry, undefined);
        entry.queue = entry.queue.then(run, run).catch((err: unknown) => this.deps.logger.error({ err, withdrawalUuid: uuid }, 'committing a withdrawal change failed'));
      },
      error: (err) => this.deps.logger.error({ err, withdrawalUuid: uuid }, 'withdrawal actor failed'),
    });
  }

  private async commit(uuid: string, entry: Entry, work: WithdrawalWork | undefined): Promise<void> {
    if (this.entries.get(uuid) !== entry) return; // closed or rebuilt meanwhile
    const snapshot = entry.actor.getSnapshot();
    const ctx = snapshot.context;
    const done = snapshot.status === 'done';
    const key = stateKey(entry.actor);
    if (!work && !done && key === entry.persistedKey) return;
    // Not worth a transaction: sign() already wrote the signed transaction to the row, and an actor
    // restored one step earlier (signing) gets that same transaction back from sign() and
    // broadcasts it. Same outcome after a crash, one transaction less per payout.
    if (!work && !done && snapshot.matches({ processing: 'broadcasting' })) return;
    const persistedSnapshot = entry.actor.getPersistedSnapshot();
    const now = this.deps.clock.now();
    let status: string;
    let change: StatusChange | null;
    try {
      const committed = await this.sql.transaction((q) => this.commitSql(q, uuid, ctx, done, persistedSnapshot, now, work));
      announceOutboxEvents(this.deps.orm, committed.events);
      ({ status, change } = committed);
    } catch (err) {
      this.rebuild(uuid, entry);
      throw err;
    }
    entry.persistedKey = key;
    entry.persistedSnapshot = persistedSnapshot;
    this.activity.record(uuid, ctx.network, 'committed', { status, state: snapshot.value, confirmations: ctx.confirmations, tx_hash: ctx.txHash, closed: done, at: now.toISOString() });
    // One line per committed status change (the row's status, as its webhook event), not per poll.
    // A failure is a WARN that says why (failure_reason: what the operator has to fix).
    if (change) {
      const line = { withdrawalUuid: uuid, merchantId: change.merchantId, network: change.network, previousStatus: change.previousStatus, status, txHash: change.txHash ?? undefined };
      if (status === 'failed') this.deps.logger.warn({ ...line, failureReason: change.failureReason }, 'withdrawal failed');
      else this.deps.logger.info(line, 'withdrawal status changed');
    }
    if (done) {
      this.activity.forget(uuid);
      entry.actor.stop();
      this.entries.delete(uuid);
    }
    this.updates.emit('update', { uuid, status } satisfies WithdrawalUpdate);
  }

  /**
   * One commit of the actor's state, on a raw connection (many per payout burst; the unit of work
   * cost more than its statements): the row locked and read, `work` (an operator's decision: its
   * checks and audit row), the changes applied, the outcome booked (postJournalsSql), one UPDATE of
   * what a flush would write (version + 1 as the ORM's versioning does), the event if the status changed.
   */
  private async commitSql(
    q: Query,
    uuid: string,
    ctx: WithdrawalMachineContext,
    done: boolean,
    persistedSnapshot: unknown,
    now: Date,
    work: WithdrawalWork | undefined,
  ): Promise<{ status: string; change: StatusChange | null; events: OutboxEvent[] }> {
    const [locked] = await q<LockedRow>(LOCK_ROW, [uuid], 'chainpay_wd_actor_lock');
    if (!locked) throw new Error(`withdrawal ${uuid} has no row`);
    const row = withdrawalOf(locked);
    const before = row.status;
    if (work) await work(q, row);
    this.applyContext(row, ctx);
    await bookOutcomeSql(q, row, now);
    if (done) row.open = false;
    row.actorSnapshot = persistedSnapshot;
    row.updatedAt = now;
    await q(
      `update withdrawals set status = $2, tx_hash = $3, confirmations = $4, rejection_reason = $5, failure_reason = $6, completed_at = $7::timestamptz, open = $8,
              actor_snapshot = $9::jsonb, updated_at = $10::timestamptz, version = version + 1 where uuid = $1`,
      [uuid, row.status, row.txHash, row.confirmations, row.rejectionReason, row.failureReason, row.completedAt?.toISOString() ?? null, row.open, JSON.stringify(persistedSnapshot), now.toISOString()],
      'chainpay_wd_actor_update',
    );
    if (row.status === before) return { status: row.status, change: null, events: [] };
    const events = withdrawalEvents(row, [`withdrawal.${row.status}`], this.deps.clock.now(), this.deps);
    await insertOutboxEventsSql(q, events);
    return { status: row.status, change: { merchantId: row.merchantId, network: row.network, previousStatus: before, txHash: row.txHash, failureReason: row.failureReason }, events };
  }

  private applyContext(row: Withdrawal, ctx: WithdrawalMachineContext): void {
    row.status = ctx.status;
    // Null until broadcast (signing stores the signed hash in signed_meta only); then the version that counts.
    if (ctx.txHash !== null) row.txHash = ctx.txHash;
    row.confirmations = ctx.confirmations;
    row.rejectionReason = ctx.rejectionReason;
    // A withdrawal waiting for an operator shows why on the row (still processing, amount held).
    row.failureReason = ctx.failureReason ?? (ctx.attention ? `${NEEDS_OPERATOR_PREFIX}${ctx.attention}` : null);
    row.completedAt = ctx.completedAt ? new Date(ctx.completedAt) : null;
  }

  /** Memory must never run ahead of the database: restart the actor from the committed snapshot. */
  private rebuild(uuid: string, entry: Entry): void {
    entry.actor.stop();
    if (this.entries.get(uuid) !== entry) return;
    this.entries.delete(uuid);
    this.start(uuid, entry.persistedSnapshot);
    void this.send(uuid, { type: 'RESUME' }).catch((err: unknown) => this.deps.logger.error({ err, withdrawalUuid: uuid }, 'resuming a rebuilt withdrawal failed'));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.queue));
    for (const e of this.entries.values()) e.actor.stop();
    this.entries.clear();
    await this.steps.drain(5_000);
  }
}
