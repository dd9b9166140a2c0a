import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import type { NetworkCode } from '../../domain/networks';
import type { BlockRef, ChainAdapter, ChainCursor, ChainObservation, TransferObservation } from '../../chains/types';
import { ReorgBeyondFinalityError } from '../../chains/sync/errors';
import { creditedAbove, recordUnattributed, revertUnattributedAbove } from '../../store/repos/deposits';
import { recordSeen, type SeenDepositRow } from '../../store/repos/seen-deposits';
import { saveCursor, saveFinal } from '../../store/repos/watcher-cursors';
import type { InvoiceActors } from '../invoices/invoice-actors';
import { StepRecord, type DepositIntake } from './deposit-intake';
import type { TrackedTransfers } from './tracked-transfers';

/** What the watcher has processed: shared by its observation handlers and its commands and status. */
export class WatcherProgress {
  /** The height of the last block processed (shown to operators; rescan bounds). */
  head = 0;
  /** Where the watch resumes: the family's cursor, opaque here (null before the first block). */
  cursor: ChainCursor | null = null;
  cursorBlockTime: Date | null = null;
  lastBlockAt: Date | null = null;
  failures = 0;
  /** The last final point as the family's cursor (persisted; the watch checks it at start). */
  finalized: ChainCursor | null = null;
  /** The last final block as this run's stream reported it (null after a restart or rescan). */
  finalBlock: BlockRef | null = null;
  /** After a rescan, blocks up to here were processed before: confirmations never go down. */
  rescanUntil = -1;
}

export interface WatcherSyncDeps {
  readonly network: NetworkCode;
  readonly adapter: ChainAdapter;
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly actors: InvoiceActors;
  readonly tracked: TrackedTransfers;
  readonly intake: DepositIntake;
  readonly progress: WatcherProgress;
  /** The invoice's required confirmations (NetworkWatcher.requiredFor). */
  readonly requiredFor: (invoiceUuid: string) => Promise<number>;
  readonly note: (type: string, payload: unknown) => void;
  /** Test hook (CHAINPAY_TEST_KILL_AT=after_deposit_recorded): never resolves. */
  readonly killAfterRecorded?: () => Promise<void>;
}

/**
 * The watcher's handling of the chain's observations, one at a time in stream order. The deposit
 * path runs one way: a block's transfers are recorded (seen_deposits for those naming an open
 * invoice, unattributed_deposits for the rest) in the transaction that moves the cursor past it;
 * then each recorded transfer goes to its invoice actor, which alone decides (status, ledger,
 * outbox, and a refusal recorded as unattributed) and marks it decided in its own commit. A crash
 * in between leaves it undecided: NetworkWatcher.start delivers it again (the machine dedupes by
 * tx hash + event index, so it is counted once).
 */
export class WatcherSync {
  /** The transfers of the block being read, recorded at its `block` observation. */
  private step = new StepRecord();

  constructor(private readonly deps: WatcherSyncDeps) {}

  observe(obs: ChainObservation): Promise<void> {
    const { note } = this.deps;
    switch (obs.kind) {
      case 'block':
        note('block', { height: obs.height, hash: obs.hash, timestamp: obs.timestamp });
        return this.onBlock(obs.height, obs.hash, obs.timestamp, obs.cursor);
      case 'transfer':
        note('transfer', { tx_hash: obs.txHash, event_index: obs.eventIndex, block_height: obs.blockHeight, to: obs.to, memo: obs.memo, amount: obs.amount, from: obs.from });
        return this.onTransfer(obs);
      case 'reorg':
        note('reorg', { common_ancestor: obs.commonAncestor.height, depth: obs.depth });
        return this.onReorg(obs.commonAncestor, obs.cursor);
      case 'finalize':
        return this.onFinalize({ height: obs.height, hash: obs.hash }, obs.cursor);
    }
  }

  /** The cursor, with the last final block (null when unknown, e.g. after a rescan). */
  async saveCursor(cursor: ChainCursor): Promise<void> {
    const { progress } = this.deps;
    progress.cursor = cursor;
    await saveCursor(this.deps.orm.em.fork(), this.deps.network, cursor, progress.finalized, this.deps.clock.now());
  }

  private async onBlock(height: number, hash: string, timestamp: Date, cursor: ChainCursor): Promise<void> {
    const { progress, actors } = this.deps;
    const started = Date.now();
    progress.head = height;
    const at = this.deps.clock.now().toISOString();
    await this.revertUnseen(height, at);
    // What this block showed is recorded with the cursor, in ONE transaction: from here on a crash
    // cannot lose it (undecided rows are delivered again at start), and the block is never replayed.
    const step = this.step;
    this.step = new StepRecord();
    await this.recordWithCursor(step, cursor);
    if (step.seen.size > 0 && this.deps.killAfterRecorded) await this.deps.killAfterRecorded();
    // Then the invoices decide, in their own commits (invoice-actors.ts decideTransfer).
    await this.deliverSeen([...step.seen.values()]);
    await this.sendConfirmations(cursor, height <= progress.rescanUntil);
    if (height > progress.rescanUntil) progress.rescanUntil = -1;
    progress.cursorBlockTime = timestamp;
    // Every block stamped before it is processed: invoices waiting for the chain past expires_at learn it.
    actors.chainTimeAdvanced(this.deps.network, timestamp);
    progress.lastBlockAt = this.deps.clock.now();
    progress.failures = 0;
    this.deps.note('committed', { cursor: height, hash, took_ms: Date.now() - started });
  }

  private async recordWithCursor(step: StepRecord, cursor: ChainCursor): Promise<void> {
    const { progress, network } = this.deps;
    const now = this.deps.clock.now();
    if (step.empty) {
      // Most blocks hold nothing of ours: the cursor alone, one statement.
      await saveCursor(this.deps.orm.em.fork(), network, cursor, progress.finalized, now);
      progress.cursor = cursor;
      return;
    }
    const unattributed = [...step.unattributed.values()];
    const ids = await this.deps.orm.em.fork().transactional(async (em) => {
      await recordSeen(em, [...step.seen.values()], now);
      const out: Array<string | undefined> = [];
      for (const u of unattributed) out.push(await recordUnattributed(em, u.transfer, u.confirmations, u.reason, now, u.intended ?? null));
      await saveCursor(em, network, cursor, progress.finalized, now);
      return out;
    });
    progress.cursor = cursor;
    unattributed.forEach((u, i) => this.deps.intake.logUnattributed(u, ids[i]));
  }

  /**
   * Each recorded transfer to its invoice actor, which decides (and marks it decided); one it took
   * is followed until its invoice's required confirmations. Also called at start for the rows a
   * crash left undecided. Per invoice in recorded order (its queue keeps the order).
   */
  async deliverSeen(rows: readonly SeenDepositRow[]): Promise<void> {
    const { actors, tracked } = this.deps;
    await Promise.all(
      rows.map(async (r) => {
        if (!(await actors.decideTransfer(r))) return;
        // Only once committed: a failed delivery stays undecided and is retried with the step.
        const key = `${r.txHash}:${r.eventIndex}`;
        tracked.set(key, { invoiceUuid: r.invoiceUuid, blockHeight: r.blockHeight, blockHash: r.blockHash, confirmations: r.confirmations, required: await this.deps.requiredFor(r.invoiceUuid) });
      }),
    );
  }

  /** The family's count of each followed transfer at `cursor`, to its invoice where it changed. */
  async sendConfirmations(cursor: ChainCursor, rescanning: boolean): Promise<void> {
    const { tracked, actors } = this.deps;
    const at = this.deps.clock.now().toISOString();
    const changes = tracked.changes((t) => this.deps.adapter.confirmationsAt(t, cursor).confirmations, rescanning);
    await Promise.all(
      changes.map(async (c) => {
        if (actors.has(c.invoiceUuid)) await actors.send(c.invoiceUuid, { type: 'CONFIRMATIONS', key: c.key, confirmations: c.confirmations, at });
        tracked.settle(c);
      }),
    );
  }

  private async onTransfer(t: TransferObservation): Promise<void> {
    const { tracked, intake, actors } = this.deps;
    const key = `${t.txHash}:${t.eventIndex}`;
    const known = tracked.get(key);
    tracked.seen(key); // seen again (on this branch)
    if (known && known.blockHeight === t.blockHeight) return; // followed already (a rescan re-found it)
    const payment = await intake.known(t);
    if (payment?.state === 'confirmed') return; // final and credited: never sent again
    const invoiceUuid = payment?.invoiceUuid ?? (await intake.resolveInvoice(t));
    // Counted by the family at the cursor processed so far (at least its own block): the block
    // observation that follows moves it to the step's count (t.confirmations), so an invoice sees
    // `confirming` before `paid` also when a catch-up range finds the payment already deep.
    const seenAt = this.deps.progress.cursor;
    const confirmations = Math.max(1, seenAt === null ? 0 : this.deps.adapter.confirmationsAt(t, seenAt).confirmations);
    const transfer = { network: t.network, txHash: t.txHash, eventIndex: t.eventIndex, blockHeight: t.blockHeight, blockHash: t.blockHash, from: t.from, to: t.to, memo: t.memo, amount: t.amount };
    // Recorded at the block, with the cursor. One naming an open invoice is that invoice's to decide
    // (its target, its late window); what names none is kept as unattributed, never dropped.
    if (invoiceUuid && actors.has(invoiceUuid)) this.step.seen.set(key, { ...transfer, invoiceUuid, blockTime: t.blockTime, confirmations });
    else if (invoiceUuid) this.step.unattributed.set(key, { transfer, confirmations, reason: 'invoice_closed' });
    else this.step.unattributed.set(key, { transfer, confirmations, ...(await intake.unattributedFor(t)) });
  }

  /**
   * After a rescan, transfers of blocks below `height` not seen again are gone: reverted like in a
   * reorg. (Both adapters emit a block's transfers before the next block.) Removed only once sent.
   */
  private async revertUnseen(height: number, at: string): Promise<void> {
    const { tracked, actors } = this.deps;
    const gone = tracked.unseenBelow(height);
    if (gone.length === 0) return;
    await Promise.all(gone.filter(({ t }) => actors.has(t.invoiceUuid)).map(({ key, t }) => actors.send(t.invoiceUuid, { type: 'TRANSFER_REVERTED', key, at })));
    for (const { key, t } of gone) {
      tracked.delete(key);
      this.deps.logger.warn({ network: this.deps.network, key, invoiceUuid: t.invoiceUuid, blockHeight: t.blockHeight }, 'transfer not found again after a rescan: reverted');
    }
  }

  private async onFinalize(block: BlockRef, final: ChainCursor): Promise<void> {
    this.deps.progress.finalized = final;
    this.deps.progress.finalBlock = block;
    // Persisted with the cursor (saved by this step's block): checked against the chain at start.
    await saveFinal(this.deps.orm.em.fork(), this.deps.network, final);
  }

  private async onReorg(ancestor: BlockRef, resumeAt: ChainCursor): Promise<void> {
    const { progress, tracked, actors, network } = this.deps;
    const final = progress.finalBlock;
    const tipHeight = progress.cursor !== null ? progress.head : ancestor.height;
    // Belt and braces: the adapters refuse this already; a final block must never be replaced.
    if (final !== null && ancestor.height < final.height) {
      throw new ReorgBeyondFinalityError(network, { finalizedHeight: final.height, finalizedHash: final.hash, tipHeight });
    }
    // A payment already credited (confirmed) in a replaced block: its invoice may have needed fewer
    // confirmations than the adapter's window. Never retract a credit silently: halt, with nothing changed.
    const credited = await creditedAbove(this.deps.orm.em.fork(), network, ancestor.height);
    if (credited !== null) {
      throw new ReorgBeyondFinalityError(network, { finalizedHeight: credited.blockHeight, finalizedHash: credited.blockHash, tipHeight, creditedTx: credited.txHash });
    }
    this.step.dropAbove(ancestor.height);
    const at = this.deps.clock.now().toISOString();
    const gone = tracked.takeAbove(ancestor.height);
    await Promise.all(gone.filter(({ t }) => actors.has(t.invoiceUuid)).map(({ key, t }) => actors.send(t.invoiceUuid, { type: 'TRANSFER_REVERTED', key, at })));
    await revertUnattributedAbove(this.deps.orm.em.fork(), network, ancestor.height);
    this.deps.logger.warn({ network, commonAncestor: ancestor.height }, 'chain reorganisation: unfinal transfers above the common ancestor reverted');
    progress.head = ancestor.height;
    progress.cursorBlockTime = null;
    await this.saveCursor(resumeAt);
  }
}
