import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import { ValidationError } from '../../domain/errors';
import type { NetworkCode } from '../../domain/networks';
import type { ChainAdapter, TransferPlace, ChainWatch, WatchedSet } from '../../chains/types';
import { builtInFamilies } from '../../chains/families';
import { isRetryable } from '../../chains/sync/retry-rule';
import { allPoolAddresses } from '../../store/repos/address-pool';
import { confirmingPayments } from '../../store/repos/deposits';
import { undecidedDeposits } from '../../store/repos/seen-deposits';
import { loadCursor, savePaused } from '../../store/repos/watcher-cursors';
import type { InvoiceActors } from '../invoices/invoice-actors';
import type { ActorActivity } from '../introspection/activity';
import { DepositIntake } from './deposit-intake';
import { LoopTotals, type LoopTotalsView } from './loop-totals';
import { classifySinkError } from './sink-errors';
import { TrackedTransfers, type Tracked } from './tracked-transfers';
import { WatcherProgress, WatcherSync } from './watcher-sync';
import { lagSeconds, type AddressPoolView, type WatcherState, type WatcherStatusView } from './watcher-status';

export type { AddressPoolView, WatcherState, WatcherStatusView } from './watcher-status';

/** A watcher built without a pool keeper (tests): no pool to report on. */
const NO_POOL_VIEW: AddressPoolView = { state: 'none', error: null, haltedAt: null };

/** A follower that reports its own failure count (the EVM BlockFollower does). */
interface WithFailures {
  status(): { consecutiveFailures: number };
}

export interface NetworkWatcherDeps {
  readonly network: NetworkCode;
  /**
   * The network's index space (FamilyRegistry.indexSpace): every address of it is watched here,
   * whichever network's pool holds it, so a payment on the wrong network of the family is seen and
   * kept as unattributed (wrong_network). Default: the built-in families' (builtInFamilies).
   */
  readonly indexSpace?: string;
  readonly adapter: ChainAdapter;
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly actors: InvoiceActors;
  readonly requiredConfirmations: () => Promise<number>;
  /** Operator introspection: observations, commands, errors and cursor commits. */
  readonly activity?: ActorActivity;
  /** The chain head while no watch runs (paused, halted), so lag keeps growing; devnet has it. */
  readonly chainHead?: () => Promise<number | null>;
  /** The network's deposit-address pool (PoolKeeper.status): shown with the watcher, for the operator. */
  readonly addressPool?: () => AddressPoolView;
  /** Test hook (CHAINPAY_TEST_KILL_AT=after_deposit_recorded): after a block's deposits and cursor were committed, before any invoice decided. */
  readonly killAfterRecorded?: () => Promise<void>;
}

/**
 * The watcher of one network. It records what the chain shows and tells invoice actors; it never
 * decides a status. Invariants:
 * - a block's transfers are recorded in the transaction that saves the cursor past it (watcher-sync.ts);
 *   one naming an open invoice stays undecided until that invoice's commit took or refused it, and
 *   at start every undecided one is delivered again before actors resume (counted once: payments
 *   are keyed by tx hash + event index);
 * - a transfer already final on an invoice is never sent again (rescans, replays), and a known
 *   payment always goes back to the invoice it belongs to, never to the unattributed list;
 * - unfinal transfers are tracked in memory and rebuilt from `invoice_payments` at start;
 * - a transfer to one of our addresses that matches no open invoice is kept as unattributed; the
 *   watched set holds every address of the network's index space (all EVM networks' pools), so a
 *   payment on the wrong EVM network credits no invoice and names the one it was meant for;
 * - a non-retryable error (a reorg deeper than finality) halts the watcher with an alert: it
 *   never continues silently; an operator resumes it or rescans from a height below the fork;
 * - a reorg that replaces a block holding a confirmed (credited) payment halts it too, whatever the
 *   adapter's window: invoices keep their own required confirmations, which may be fewer;
 * - each unfinal transfer is followed until its invoice's own required confirmations;
 * - the last final block is saved with the cursor and checked against the chain at start.
 */
export class NetworkWatcher {
  private readonly watched: WatchedSet;
  private readonly tracked = new TrackedTransfers();
  private readonly intake: DepositIntake;
  private watch: ChainWatch | null = null;
  private state: WatcherState = 'starting';
  private chainHead = 0;
  private lastError: { message: string; at: Date } | null = null;
  private readonly progress = new WatcherProgress();
  private readonly loops = new LoopTotals();
  private readonly sync: WatcherSync;
  private control: Promise<void> = Promise.resolve();

  constructor(private readonly deps: NetworkWatcherDeps) {
    this.watched = deps.adapter.newWatchedSet();
    this.intake = new DepositIntake(deps);
    this.sync = new WatcherSync({
      ...deps,
      tracked: this.tracked,
      intake: this.intake,
      progress: this.progress,
      requiredFor: (uuid) => this.requiredFor(uuid),
      note: (type, payload) => this.note(type, payload),
    });
  }

  get network(): NetworkCode {
    return this.deps.network;
  }

  addWatched(normalized: Iterable<string>): void {
    this.watched.addAll(normalized);
  }

  async start(): Promise<void> {
    const em = this.deps.orm.em.fork();
    const { adapter, network } = this.deps;
    try {
      this.intake.sharedAddress = adapter.normalizeAddress(adapter.sharedDepositAddress());
      this.watched.addAll([this.intake.sharedAddress]);
    } catch {
      this.intake.sharedAddress = null;
    }
    this.watched.addAll(await allPoolAddresses(em, this.deps.indexSpace ?? builtInFamilies().indexSpace(network)));
    const saved = await loadCursor(em, network);
    // The family's own cursor JSON: only its adapter reads it (the height, for lag and rescans).
    this.progress.cursor = saved?.cursor ?? null;
    // The last final point: the watch checks the chain still holds it (a reorg while we were down).
    this.progress.finalized = saved?.finalized ?? null;
    this.progress.head = saved ? adapter.cursorHeight(saved.cursor) : 0;
    if (saved?.paused) this.state = 'paused';
    // Unfinal transfers survive a restart through their payment rows.
    for (const p of await confirmingPayments(em, network)) {
      const required = await this.requiredFor(p.invoiceUuid, p.requiredConfirmations);
      this.tracked.set(p.key, { invoiceUuid: p.invoiceUuid, blockHeight: p.blockHeight, blockHash: p.blockHash, confirmations: p.confirmations, required });
      if (this.progress.cursor !== null && p.blockHeight > this.progress.head) this.tracked.markRecheck(p.key);
    }
    // Recorded with the cursor but not decided (a crash came between): their invoices decide now,
    // between restoring and resuming actors. Then the counts at the saved cursor go out (a crash may
    // also have come before a block's CONFIRMATIONS; a count never goes down here).
    await this.sync.deliverSeen(await undecidedDeposits(em, network));
    if (this.progress.cursor !== null) await this.sync.sendConfirmations(this.progress.cursor, true);
    if (this.state !== 'paused') this.run();
  }

  private run(): void {
    this.state = 'running';
    this.progress.failures = 0;
    this.watch = this.deps.adapter.watch({
      from: this.progress.cursor,
      finalized: this.progress.finalized,
      watched: this.watched,
      sink: async (obs) => {
        if (this.state === 'stopped' || this.state === 'halted') return;
        // Mapped once here: the database away is retried, anything else stops the watch (halt).
        await this.sync.observe(obs).catch(async (error: unknown) => {
          throw await classifySinkError(error, this.deps.orm);
        });
      },
      onError: (error) => this.onError(error),
      // Pushed by a watch that vouches for a chain time (devnet idle at its head): passed on to invoices.
      onSynced: (until) => {
        if (this.state === 'running') this.deps.actors.chainTimeAdvanced(this.deps.network, until);
      },
    });
  }

  private onError(error: Error): void {
    this.lastError = { message: error.message, at: this.deps.clock.now() };
    this.progress.failures += 1;
    const retryable = isRetryable(error);
    const code = (error as { code?: unknown }).code;
    this.note('error', { name: error.name, code: typeof code === 'string' ? code : null, message: error.message, retryable });
    if (retryable) {
      this.deps.logger.warn({ err: error, network: this.deps.network }, 'watcher error; the adapter retries');
      return;
    }
    void this.serial(() => this.halt(error));
  }

  /** Stop for good (until an operator acts) and raise the alert: an error log line and a metric. */
  private async halt(error: Error): Promise<void> {
    if (this.state === 'halted' || this.state === 'stopped') return;
    this.state = 'halted';
    const code = (error as { code?: unknown }).code;
    this.deps.logger.error(
      { err: error, network: this.deps.network, alert: 'watcher_halted', code, cursor: this.cursorHeight(undefined) },
      'watcher HALTED on a non-retryable error; an operator must act (chainpay watchers rescan|resume)',
    );
    this.note('halted', { name: error.name, code: typeof code === 'string' ? code : 'non_retryable', message: error.message });
    await this.retireWatch().catch(() => undefined);
  }

  /** Operator commands run one at a time. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.control.then(fn, fn);
    this.control = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  pause(): Promise<void> {
    return this.serial(async () => {
      if (this.state !== 'running') return;
      this.state = 'paused';
      this.note('pause', { cursor: this.cursorHeight(null) });
      await this.retireWatch();
      await this.savePaused(true);
    });
  }

  /** From paused, or from halted once the operator judged it safe (the check runs again). */
  resume(): Promise<void> {
    return this.serial(async () => {
      if (this.state !== 'paused' && this.state !== 'halted') return;
      const from = this.state;
      await this.savePaused(false);
      this.run();
      this.note('resume', { cursor: this.cursorHeight(null), from });
    });
  }

  /**
   * Scan again from block `fromHeight` (the cursor moves to the canonical block below it). Nothing
   * is credited twice: payments are keyed by (network, tx hash, event index), final ones are
   * skipped here and the invoice machine dedupes the rest. A paused watcher stays paused.
   */
  rescan(fromHeight: number): Promise<void> {
    return this.serial(async () => {
      const blockAt = this.deps.adapter.blockAt?.bind(this.deps.adapter);
      if (!blockAt) throw new ValidationError('rescan_unsupported', `${this.deps.network}: this chain adapter cannot rescan`, 'network');
      const current = this.cursorHeight(-1);
      if (!Number.isSafeInteger(fromHeight) || fromHeight < 1) throw new ValidationError('invalid_height', 'from_height must be a block height >= 1', 'from_height');
      if (fromHeight > current + 1)
        throw new ValidationError('rescan_ahead_of_cursor', `from_height ${fromHeight} is above the cursor ${current} + 1: a rescan never skips blocks`, 'from_height', { cursor: current });
      // The adapter builds the cursor of the block below (its family's shape); the watcher keeps it opaque.
      const cursor = await blockAt(fromHeight - 1);
      if (!cursor) throw new ValidationError('unknown_height', `block ${fromHeight - 1} is not on the chain`, 'from_height');
      const resume = this.state === 'running' || this.state === 'halted';
      await this.retireWatch();
      this.deps.logger.warn({ network: this.deps.network, fromHeight, previousCursor: current }, 'operator rescan');
      this.progress.rescanUntil = Math.max(this.progress.rescanUntil, current);
      const height = this.deps.adapter.cursorHeight(cursor);
      this.tracked.recheckAbove(height);
      this.progress.cursor = cursor;
      this.progress.head = height;
      this.progress.cursorBlockTime = null;
      // The operator chose the branch: the old final block (maybe replaced) is no longer checked.
      this.progress.finalized = null;
      this.progress.finalBlock = null;
      await this.sync.saveCursor(cursor);
      if (resume) {
        await this.savePaused(false);
        this.run();
      }
      this.note('rescan', { from_height: fromHeight, previous_cursor: current });
    });
  }

  /**
   * Count the confirmations of a payment an operator attributed (see attribute-deposit.ts), up to
   * `required`. Blocks processed while the attribution was in flight are counted at once: waiting
   * for the next block would leave the invoice short when none comes (an idle chain).
   */
  async track(key: string, invoiceUuid: string, place: TransferPlace, confirmations: number, required: number): Promise<void> {
    const t: Tracked = { invoiceUuid, blockHeight: place.blockHeight, blockHash: place.blockHash, confirmations, required };
    this.tracked.set(key, t);
    const now = this.confirmationsOf(place);
    if (now <= t.confirmations || !this.deps.actors.has(invoiceUuid)) return;
    try {
      await this.deps.actors.send(invoiceUuid, { type: 'CONFIRMATIONS', key, confirmations: now, at: this.deps.clock.now().toISOString() });
    } catch (err) {
      // The attribution is committed; the next block sends the count again (t.confirmations unchanged).
      this.deps.logger.warn({ err, network: this.deps.network, invoiceUuid, key }, 'confirmations of an attributed payment not delivered yet');
      return;
    }
    this.tracked.settle({ key, invoiceUuid, confirmations: now });
  }

  /** A transfer's confirmations at the processed cursor, as the family counts them (0 before any block). */
  confirmationsOf(place: TransferPlace): number {
    const cursor = this.progress.cursor;
    return cursor === null ? 0 : this.deps.adapter.confirmationsAt(place, cursor).confirmations;
  }

  /** Reads the chain head (also while paused or halted, when the chain can tell). */
  async refresh(): Promise<WatcherStatusView> {
    const live = this.watch?.head();
    if (live !== null && live !== undefined) this.chainHead = live;
    else if (this.deps.chainHead) this.chainHead = (await this.deps.chainHead().catch(() => null)) ?? this.chainHead;
    return this.status();
  }

  status(): WatcherStatusView {
    const live = this.watch?.head();
    if (live !== null && live !== undefined) this.chainHead = live;
    const cursor = this.cursorHeight(0);
    const head = Math.max(this.chainHead, cursor);
    const lagBlocks = this.progress.cursor ? head - cursor : 0;
    const follower = this.watch as Partial<WithFailures> | null;
    const failures = typeof follower?.status === 'function' ? follower.status().consecutiveFailures : this.progress.failures;
    const now = this.deps.clock.now();
    return {
      network: this.deps.network,
      mode: this.deps.adapter.mode,
      state: this.state,
      head,
      cursor,
      lagBlocks,
      lagSeconds: lagSeconds({ lagBlocks, now, cursorBlockTime: this.progress.cursorBlockTime, since: this.progress.lastBlockAt }),
      lastBlockAt: this.progress.lastBlockAt,
      lastError: this.lastError?.message ?? null,
      lastErrorAt: this.lastError?.at ?? null,
      rpcHealthy: this.state !== 'halted' && failures === 0,
      watched: this.watched.size(),
      tracked: this.tracked.size,
      addressPool: this.deps.addressPool?.() ?? NO_POOL_VIEW,
    };
  }

  /** Unfinal transfers this watcher follows (ShowActor). */
  trackedTransfers(): Array<{ key: string; invoiceUuid: string; blockHeight: number; confirmations: number; required: number }> {
    return this.tracked.list();
  }

  /**
   * Resolves once the cursor reached the chain head seen now (or after timeoutMs): invoice timers
   * are re-armed only after this, so a payment made in time is applied before its invoice expires.
   */
  async waitCaughtUp(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.state !== 'running') return true;
      const head = this.watch?.head();
      if (head !== null && head !== undefined && this.cursorHeight(-1) >= head) return true;
      await new Promise((r) => setTimeout(r, 25));
    }
    return false;
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    await this.retireWatch();
  }

  /** Steps, retries and errors by class of this network's run loops (every watch it ran). */
  loopTotals(): LoopTotalsView {
    return this.loops.view(this.watch?.loopStats?.());
  }

  /** Stops the running watch (if any) and keeps its run-loop figures. */
  private async retireWatch(): Promise<void> {
    const watch = this.watch;
    this.watch = null;
    if (watch === null) return;
    try {
      await watch.stop();
    } finally {
      this.loops.retire(watch.loopStats?.());
    }
  }

  private note(type: string, payload: unknown): void {
    this.deps.activity?.record(this.deps.network, this.deps.network, type, payload);
  }

  /**
   * The invoice's required confirmations: its actor's (a network change may have replaced them),
   * else its row's; the network's current setting only when neither knows (0 = no network yet).
   */
  private async requiredFor(invoiceUuid: string, fromRow?: number): Promise<number> {
    const own = this.deps.actors.context(invoiceUuid)?.requiredConfirmations ?? fromRow;
    return own !== undefined && own > 0 ? own : this.deps.requiredConfirmations();
  }

  /** The processed height, or `none` before the first block. */
  private cursorHeight<T>(none: T): number | T {
    return this.progress.cursor !== null ? this.progress.head : none;
  }

  private async savePaused(paused: boolean): Promise<void> {
    await savePaused(this.deps.orm.em.fork(), this.deps.network, paused);
  }
}
