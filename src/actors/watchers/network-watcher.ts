import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import { ValidationError } from '../../domain/errors';
import type { NetworkCode } from '../../domain/networks';
import type { ChainAdapter, ChainCursor, ChainObservation, ChainWatch, TransferObservation, UnstampedTransfer, WatchedSet } from '../../chains/types';
import { blockTimeMatters } from '../../domain/invoice-step';
import { isRetryable, ReorgBeyondFinalityError } from '../../chains/sync/errors';
import { Invoice, UnattributedDeposit, WatcherCursor } from '../../store/entities';
import { addressOwner, allPoolAddresses } from '../../store/repos/address-pool';
import type { InvoiceActors } from '../invoices/invoice-actors';
import type { ActorActivity } from '../introspection/activity';
import { lagSeconds, type AddressPoolView, type WatcherState, type WatcherStatusView } from './watcher-status';

export type { AddressPoolView, WatcherState, WatcherStatusView } from './watcher-status';

/** A watcher built without a pool keeper (tests): no pool to report on. */
const NO_POOL_VIEW: AddressPoolView = { state: 'none', error: null, haltedAt: null };

interface Tracked {
  readonly invoiceUuid: string;
  blockHeight: number;
  confirmations: number;
  /** The invoice's own required confirmations (fixed at its creation): tracked until reached. */
  readonly required: number;
}

/** A follower that reports its own failure count (the EVM BlockFollower does). */
interface WithFailures {
  status(): { consecutiveFailures: number };
}

export interface NetworkWatcherDeps {
  readonly network: NetworkCode;
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
}

/**
 * The watcher of one network. It records what the chain shows and tells invoice actors; it never
 * decides a status. Invariants:
 * - the cursor is saved only after every observation of that block was committed by its invoice,
 *   so a crash replays (and a replay is counted once: payments are keyed by tx hash + event index);
 * - a transfer already final on an invoice is never sent again (rescans, replays), and a known
 *   payment always goes back to the invoice it belongs to, never to the unattributed list;
 * - unfinal transfers are tracked in memory and rebuilt from `invoice_payments` at start;
 * - a transfer to one of our addresses that matches no open invoice is kept as unattributed;
 * - a non-retryable error (a reorg deeper than finality) halts the watcher with an alert: it
 *   never continues silently; an operator resumes it or rescans from a height below the fork;
 * - a reorg that replaces a block holding a confirmed (credited) payment halts it too, whatever the
 *   adapter's window: invoices keep their own required confirmations, which may be fewer;
 * - each unfinal transfer is followed until its invoice's own required confirmations;
 * - the last final block is saved with the cursor and checked against the chain at start.
 */
export class NetworkWatcher {
  private readonly watched: WatchedSet;
  private readonly tracked = new Map<string, Tracked>();
  /**
   * Tracked transfers above the cursor a rescan (or a restart after one) moved back to: each must be
   * seen again by the time the scan passes its block, or it is gone (the chain took another branch
   * without a reorg being reported) and is reverted, never counted on to a credit.
   */
  private readonly recheck = new Set<string>();
  private watch: ChainWatch | null = null;
  private state: WatcherState = 'starting';
  /** The last block processed (confirmations are counted from it). */
  private head = 0;
  private chainHead = 0;
  private cursor: ChainCursor | null = null;
  private cursorBlockTime: Date | null = null;
  private lastBlockAt: Date | null = null;
  private lastError: { message: string; at: Date } | null = null;
  private failures = 0;
  private finalized: ChainCursor | null = null;
  /** After a rescan, blocks up to here were processed before: confirmations never go down. */
  private rescanUntil = -1;
  private sharedAddress: string | null = null;
  private control: Promise<void> = Promise.resolve();

  constructor(private readonly deps: NetworkWatcherDeps) {
    this.watched = deps.adapter.newWatchedSet();
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
      this.sharedAddress = adapter.normalizeAddress(adapter.sharedDepositAddress());
      this.watched.addAll([this.sharedAddress]);
    } catch {
      this.sharedAddress = null;
    }
    this.watched.addAll(await allPoolAddresses(em, network));
    const saved = await em.findOne(WatcherCursor, { network });
    this.cursor = saved ? { height: saved.height, hash: saved.hash } : null;
    // The last final block: the watch checks the chain still holds it (a reorg while we were down).
    this.finalized = saved && saved.finalHeight !== null && saved.finalHash !== null ? { height: saved.finalHeight, hash: saved.finalHash } : null;
    this.head = saved?.height ?? 0;
    if (saved?.paused) this.state = 'paused';
    // Unfinal transfers survive a restart through their payment rows.
    const rows = await em.execute<{ tx_hash: string; event_index: number; invoice_uuid: string; block_height: string; confirmations: number; required_confirmations: number }[]>(
      `select p.tx_hash, p.event_index, p.invoice_uuid, p.block_height, p.confirmations, i.required_confirmations from invoice_payments p join invoices i on i.uuid = p.invoice_uuid
       where p.network = ? and p.state = 'confirming' and i.open`,
      [network],
    );
    for (const r of rows) {
      const required = await this.requiredFor(r.invoice_uuid, r.required_confirmations);
      const key = `${r.tx_hash}:${r.event_index}`;
      this.tracked.set(key, { invoiceUuid: r.invoice_uuid, blockHeight: Number(r.block_height), confirmations: r.confirmations, required });
      if (this.cursor !== null && Number(r.block_height) > this.cursor.height) this.recheck.add(key);
    }
    if (this.state !== 'paused') this.run();
  }

  private run(): void {
    this.state = 'running';
    this.failures = 0;
    this.watch = this.deps.adapter.watch({
      from: this.cursor,
      finalized: this.finalized,
      watched: this.watched,
      sink: (obs) => this.observe(obs),
      onError: (error) => this.onError(error),
      needsExactBlockTime: (t, earliest, latest) => this.needsExactBlockTime(t, earliest, latest),
    });
  }

  /** Only a transfer whose open invoice has its expires_at inside the interval needs its exact block time. */
  private async needsExactBlockTime(t: UnstampedTransfer, earliest: Date, latest: Date): Promise<boolean> {
    const invoiceUuid = (await this.knownPayment(t))?.invoiceUuid ?? (await this.resolveInvoice(t));
    const ctx = invoiceUuid ? this.deps.actors.context(invoiceUuid) : undefined;
    return ctx !== undefined && blockTimeMatters(ctx, earliest, latest);
  }

  private onError(error: Error): void {
    this.lastError = { message: error.message, at: this.deps.clock.now() };
    this.failures += 1;
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
      { err: error, network: this.deps.network, alert: 'watcher_halted', code, cursor: this.cursor?.height },
      'watcher HALTED on a non-retryable error; an operator must act (chainpay watchers rescan|resume)',
    );
    this.note('halted', { name: error.name, code: typeof code === 'string' ? code : 'non_retryable', message: error.message });
    const watch = this.watch;
    this.watch = null;
    await watch?.stop().catch(() => undefined);
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
      this.note('pause', { cursor: this.cursor?.height ?? null });
      await this.watch?.stop();
      this.watch = null;
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
      this.note('resume', { cursor: this.cursor?.height ?? null, from });
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
      const current = this.cursor?.height ?? -1;
      if (!Number.isSafeInteger(fromHeight) || fromHeight < 1) throw new ValidationError('invalid_height', 'from_height must be a block height >= 1', 'from_height');
      if (fromHeight > current + 1)
        throw new ValidationError('rescan_ahead_of_cursor', `from_height ${fromHeight} is above the cursor ${current} + 1: a rescan never skips blocks`, 'from_height', { cursor: current });
      const cursor = await blockAt(fromHeight - 1);
      if (!cursor) throw new ValidationError('unknown_height', `block ${fromHeight - 1} is not on the chain`, 'from_height');
      const resume = this.state === 'running' || this.state === 'halted';
      await this.watch?.stop();
      this.watch = null;
      this.deps.logger.warn({ network: this.deps.network, fromHeight, previousCursor: current }, 'operator rescan');
      this.rescanUntil = Math.max(this.rescanUntil, current);
      for (const [key, t] of this.tracked) if (t.blockHeight > cursor.height) this.recheck.add(key);
      this.cursor = cursor;
      this.head = cursor.height;
      this.cursorBlockTime = null;
      // The operator chose the branch: the old final block (maybe replaced) is no longer checked.
      this.finalized = null;
      await this.saveCursor(cursor);
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
  async track(key: string, invoiceUuid: string, blockHeight: number, confirmations: number, required: number): Promise<void> {
    const t: Tracked = { invoiceUuid, blockHeight, confirmations, required };
    this.tracked.set(key, t);
    const now = Math.max(0, this.head - blockHeight + 1);
    if (now <= t.confirmations || !this.deps.actors.has(invoiceUuid)) return;
    try {
      await this.deps.actors.send(invoiceUuid, { type: 'CONFIRMATIONS', key, confirmations: now, at: this.deps.clock.now().toISOString() });
    } catch (err) {
      // The attribution is committed; the next block sends the count again (t.confirmations unchanged).
      this.deps.logger.warn({ err, network: this.deps.network, invoiceUuid, key }, 'confirmations of an attributed payment not delivered yet');
      return;
    }
    t.confirmations = Math.max(t.confirmations, now);
    if (t.confirmations >= t.required) this.tracked.delete(key);
  }

  /** The last processed block (confirmations of a new payment are counted from it). */
  processedHeight(): number {
    return this.head;
  }

  /**
   * The processed chain time: every block stamped before it has been processed, so a payment made
   * before it has reached its invoice. The last processed block's timestamp; a running watch that
   * knows its head exactly (devnet) vouches for more once idle. Null while unknown. Invoices wait
   * for it to pass expires_at before they expire (paused, halted, lagging: they wait).
   */
  chainTime(): Date | null {
    const processed = this.cursorBlockTime;
    const vouched = this.state === 'running' ? (this.watch?.syncedUntil?.() ?? null) : null;
    if (processed === null || vouched === null) return processed ?? vouched;
    return vouched > processed ? vouched : processed;
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
    const cursor = this.cursor?.height ?? 0;
    const head = Math.max(this.chainHead, cursor);
    const lagBlocks = this.cursor ? head - cursor : 0;
    const follower = this.watch as Partial<WithFailures> | null;
    const failures = typeof follower?.status === 'function' ? follower.status().consecutiveFailures : this.failures;
    const now = this.deps.clock.now();
    return {
      network: this.deps.network,
      mode: this.deps.adapter.mode,
      state: this.state,
      head,
      cursor,
      lagBlocks,
      lagSeconds: lagSeconds({ lagBlocks, now, cursorBlockTime: this.cursorBlockTime, since: this.lastBlockAt }),
      lastBlockAt: this.lastBlockAt,
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
    return [...this.tracked].map(([key, t]) => ({ key, ...t }));
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
      if (head !== null && head !== undefined && (this.cursor?.height ?? -1) >= head) return true;
      await new Promise((r) => setTimeout(r, 25));
    }
    return false;
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    await this.watch?.stop();
    this.watch = null;
  }

  private note(type: string, payload: unknown): void {
    this.deps.activity?.record(this.deps.network, this.deps.network, type, payload);
  }

  private async observe(obs: ChainObservation): Promise<void> {
    if (this.state === 'stopped' || this.state === 'halted') return;
    switch (obs.kind) {
      case 'block':
        this.note('block', { height: obs.height, hash: obs.hash, timestamp: obs.timestamp });
        return this.onBlock(obs.height, obs.hash, obs.timestamp);
      case 'transfer':
        this.note('transfer', { tx_hash: obs.txHash, event_index: obs.eventIndex, block_height: obs.blockHeight, to: obs.to, memo: obs.memo, amount: obs.amount, from: obs.from });
        return this.onTransfer(obs);
      case 'reorg':
        this.note('reorg', { common_ancestor: obs.commonAncestor.height, depth: obs.depth });
        return this.onReorg(obs.commonAncestor);
      case 'finalize':
        return this.onFinalize({ height: obs.height, hash: obs.hash });
    }
  }

  private async onBlock(height: number, hash: string, timestamp: Date): Promise<void> {
    const started = Date.now();
    this.head = height;
    const at = this.deps.clock.now().toISOString();
    await this.revertUnseen(height, at);
    const sends: Promise<void>[] = [];
    for (const [key, t] of this.tracked) {
      const confirmations = Math.max(0, height - t.blockHeight + 1);
      if (confirmations === t.confirmations) continue;
      if (height <= this.rescanUntil && confirmations < t.confirmations) continue; // re-seen block
      t.confirmations = confirmations;
      if (this.deps.actors.has(t.invoiceUuid)) sends.push(this.deps.actors.send(t.invoiceUuid, { type: 'CONFIRMATIONS', key, confirmations, at }));
      // Each invoice's own requirement, not the network's current setting (it may have changed since).
      if (confirmations >= t.required) this.tracked.delete(key);
    }
    await Promise.all(sends);
    if (height > this.rescanUntil) this.rescanUntil = -1;
    await this.saveCursor({ height, hash });
    this.cursorBlockTime = timestamp;
    this.lastBlockAt = this.deps.clock.now();
    this.failures = 0;
    this.note('committed', { cursor: height, hash, took_ms: Date.now() - started });
  }

  private async onTransfer(t: TransferObservation): Promise<void> {
    const key = `${t.txHash}:${t.eventIndex}`;
    const known = this.tracked.get(key);
    this.recheck.delete(key); // seen again (on this branch)
    if (known && known.blockHeight === t.blockHeight) return; // followed already (a rescan re-found it)
    const payment = await this.knownPayment(t);
    if (payment?.state === 'confirmed') return; // final and credited: never sent again
    const invoiceUuid = payment?.invoiceUuid ?? (await this.resolveInvoice(t));
    const confirmations = Math.max(1, this.head - t.blockHeight + 1);
    if (invoiceUuid && this.deps.actors.has(invoiceUuid)) {
      // The invoice decides whether it takes the transfer (its target, its late window); what it
      // does not take is recorded as unattributed below, never dropped.
      const refused = await this.deps.actors.deliverTransfer(
        invoiceUuid,
        {
          type: 'TRANSFER_SEEN',
          payment: { txHash: t.txHash, eventIndex: t.eventIndex, from: t.from, amount: t.amount, blockHeight: t.blockHeight, confirmations, blockTime: t.blockTime.toISOString() },
          to: { network: t.network, address: t.to, memo: t.memo?.trim() || null },
          at: this.deps.clock.now().toISOString(),
        },
        { key, value: { network: t.network, toAddress: t.to, memo: t.memo, blockHash: t.blockHash } },
      );
      if (refused === null) {
        // Only once committed: a failed send is retried with the step and must not be skipped.
        this.tracked.set(key, { invoiceUuid, blockHeight: t.blockHeight, confirmations, required: await this.requiredFor(invoiceUuid) });
        return;
      }
      return this.recordUnattributed(t, refused);
    }
    await this.recordUnattributed(t, invoiceUuid ? 'invoice_closed' : this.reasonFor(t));
  }

  private async knownPayment(t: UnstampedTransfer): Promise<{ state: string; invoiceUuid: string } | null> {
    const rows = await this.deps.orm.em
      .fork()
      .execute<{ state: string; invoice_uuid: string }[]>('select state, invoice_uuid from invoice_payments where network = ? and tx_hash = ? and event_index = ?', [
        this.deps.network,
        t.txHash,
        t.eventIndex,
      ]);
    return rows[0] ? { state: rows[0].state, invoiceUuid: rows[0].invoice_uuid } : null;
  }

  private reasonFor(t: TransferObservation): string {
    if (this.sharedAddress !== null && t.to === this.sharedAddress) return t.memo ? 'unknown_memo' : 'missing_memo';
    return 'free_pool_address';
  }

  private async resolveInvoice(t: UnstampedTransfer): Promise<string | null> {
    const em = this.deps.orm.em.fork();
    if (this.sharedAddress !== null && t.to === this.sharedAddress) {
      if (!t.memo) return null;
      const row = await em.findOne(Invoice, { network: this.deps.network, memo: t.memo.trim() }, { fields: ['uuid'] });
      return row?.uuid ?? null;
    }
    const owner = await addressOwner(em, this.deps.network, t.to);
    return owner?.state === 'allocated' ? owner.invoiceUuid : null;
  }

  private async recordUnattributed(t: TransferObservation, reason: string): Promise<void> {
    const em = this.deps.orm.em.fork();
    // `returning id`: on a conflict the row keeps its first id, which is the one to log (the CLI's deposit_id).
    const rows = await em.execute<{ id: string }[]>(
      `insert into unattributed_deposits (id, network, address, memo, tx_hash, event_index, amount, from_address, block_height, block_hash, confirmations, reason, state, seen_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?)
       on conflict (network, tx_hash, event_index) do update set state = case when unattributed_deposits.state = 'reverted' then 'open' else unattributed_deposits.state end,
         block_height = excluded.block_height, block_hash = excluded.block_hash
       returning id`,
      [
        new UnattributedDeposit(t.network, t.to, t.memo, t.txHash, t.eventIndex, t.amount, t.from, t.blockHeight, t.blockHash, reason, this.deps.clock.now()).id,
        t.network,
        t.to,
        t.memo,
        t.txHash,
        t.eventIndex,
        t.amount,
        t.from,
        t.blockHeight,
        t.blockHash,
        Math.max(1, this.head - t.blockHeight + 1),
        reason,
        this.deps.clock.now(),
      ],
    );
    this.deps.logger.warn(
      { depositId: rows[0]?.id, network: t.network, txHash: t.txHash, eventIndex: t.eventIndex, address: t.to, memo: t.memo, amount: t.amount, reason },
      'unattributed deposit recorded',
    );
  }

  /**
   * The invoice's required confirmations: its actor's (a network change may have replaced them),
   * else its row's; the network's current setting only when neither knows (0 = no network yet).
   */
  private async requiredFor(invoiceUuid: string, fromRow?: number): Promise<number> {
    const own = this.deps.actors.context(invoiceUuid)?.requiredConfirmations ?? fromRow;
    return own !== undefined && own > 0 ? own : this.deps.requiredConfirmations();
  }

  /**
   * After a rescan, transfers of blocks below `height` not seen again are gone: reverted like in a
   * reorg. (Both adapters emit a block's transfers before the next block.) Removed only once sent.
   */
  private async revertUnseen(height: number, at: string): Promise<void> {
    const gone = [...this.recheck].flatMap((key) => {
      const t = this.tracked.get(key);
      if (!t) this.recheck.delete(key);
      return t && t.blockHeight < height ? [{ key, t }] : [];
    });
    if (gone.length === 0) return;
    await Promise.all(gone.filter(({ t }) => this.deps.actors.has(t.invoiceUuid)).map(({ key, t }) => this.deps.actors.send(t.invoiceUuid, { type: 'TRANSFER_REVERTED', key, at })));
    for (const { key, t } of gone) {
      this.tracked.delete(key);
      this.recheck.delete(key);
      this.deps.logger.warn({ network: this.deps.network, key, invoiceUuid: t.invoiceUuid, blockHeight: t.blockHeight }, 'transfer not found again after a rescan: reverted');
    }
  }

  private async onFinalize(final: ChainCursor): Promise<void> {
    this.finalized = final;
    // Persisted with the cursor (saved by this step's block): checked against the chain at start.
    await this.deps.orm.em.fork().execute(`update watcher_cursors set final_height = ?, final_hash = ? where network = ?`, [final.height, final.hash, this.deps.network]);
  }

  private async onReorg(ancestor: ChainCursor): Promise<void> {
    const final = this.finalized;
    const tipHeight = this.cursor?.height ?? ancestor.height;
    // Belt and braces: the adapters refuse this already; a final block must never be replaced.
    if (final !== null && ancestor.height < final.height) {
      throw new ReorgBeyondFinalityError(this.deps.network, { finalizedHeight: final.height, finalizedHash: final.hash, tipHeight });
    }
    // A payment already credited (confirmed) in a replaced block: its invoice may have needed fewer
    // confirmations than the adapter's window. Never retract a credit silently: halt, with nothing changed.
    const credited = await this.creditedAbove(ancestor.height);
    if (credited !== null) {
      throw new ReorgBeyondFinalityError(this.deps.network, { finalizedHeight: credited.blockHeight, finalizedHash: credited.blockHash, tipHeight, creditedTx: credited.txHash });
    }
    const at = this.deps.clock.now().toISOString();
    const sends: Promise<void>[] = [];
    for (const [key, t] of this.tracked) {
      if (t.blockHeight <= ancestor.height) continue;
      this.tracked.delete(key);
      this.recheck.delete(key);
      if (this.deps.actors.has(t.invoiceUuid)) sends.push(this.deps.actors.send(t.invoiceUuid, { type: 'TRANSFER_REVERTED', key, at }));
    }
    await Promise.all(sends);
    await this.deps.orm.em.fork().execute(`update unattributed_deposits set state = 'reverted' where network = ? and state = 'open' and block_height > ?`, [this.deps.network, ancestor.height]);
    this.deps.logger.warn({ network: this.deps.network, commonAncestor: ancestor.height }, 'chain reorganisation: unfinal transfers above the common ancestor reverted');
    this.head = ancestor.height;
    this.cursorBlockTime = null;
    await this.saveCursor(ancestor);
  }

  /** The lowest confirmed payment of this network in a block above `height`, if any. */
  private async creditedAbove(height: number): Promise<{ txHash: string; blockHeight: number; blockHash: string } | null> {
    const rows = await this.deps.orm.em
      .fork()
      .execute<{ tx_hash: string; block_height: string; block_hash: string }[]>(
        `select tx_hash, block_height, block_hash from invoice_payments where network = ? and state = 'confirmed' and block_height > ? order by block_height limit 1`,
        [this.deps.network, height],
      );
    const r = rows[0];
    return r ? { txHash: r.tx_hash, blockHeight: Number(r.block_height), blockHash: r.block_hash } : null;
  }

  /** The cursor, with the last final block (null when unknown, e.g. after a rescan). */
  private async saveCursor(cursor: ChainCursor): Promise<void> {
    this.cursor = cursor;
    const final = this.finalized;
    await this.deps.orm.em.fork().execute(
      `insert into watcher_cursors (network, height, hash, final_height, final_hash, paused, updated_at) values (?, ?, ?, ?, ?, false, ?)
       on conflict (network) do update set height = excluded.height, hash = excluded.hash, final_height = excluded.final_height, final_hash = excluded.final_hash, updated_at = excluded.updated_at`,
      [this.deps.network, cursor.height, cursor.hash, final?.height ?? null, final?.hash ?? null, this.deps.clock.now()],
    );
  }

  private async savePaused(paused: boolean): Promise<void> {
    await this.deps.orm.em.fork().execute(`update watcher_cursors set paused = ? where network = ?`, [paused, this.deps.network]);
  }
}
