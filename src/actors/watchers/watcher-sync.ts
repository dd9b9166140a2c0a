import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import type { NetworkCode } from '../../domain/networks';
import type { BlockRef, ChainAdapter, ChainCursor, ChainObservation, TransferObservation } from '../../chains/types';
import { ReorgBeyondFinalityError } from '../../chains/sync/errors';
import { creditedAbove, revertUnattributedAbove } from '../../store/repos/deposits';
import { saveCursor, saveFinal } from '../../store/repos/watcher-cursors';
import type { InvoiceActors } from '../invoices/invoice-actors';
import type { DepositIntake } from './deposit-intake';
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
}

/**
 * The watcher's handling of the chain's observations, one at a time in stream order: records what
 * the chain shows, tells invoice actors, and commits the cursor once a block's observations were
 * all committed (so a crash replays; a replay is counted once: payments are keyed by tx hash + event index).
 */
export class WatcherSync {
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
    const { progress, tracked, actors } = this.deps;
    const started = Date.now();
    progress.head = height;
    const at = this.deps.clock.now().toISOString();
    await this.revertUnseen(height, at);
    // The family counts each transfer's confirmations at the new cursor (block depth on EVM).
    const changes = tracked.changes((t) => this.deps.adapter.confirmationsAt(t, cursor).confirmations, height <= progress.rescanUntil);
    await Promise.all(
      changes.map(async (c) => {
        if (actors.has(c.invoiceUuid)) await actors.send(c.invoiceUuid, { type: 'CONFIRMATIONS', key: c.key, confirmations: c.confirmations, at });
        tracked.settle(c);
      }),
    );
    if (height > progress.rescanUntil) progress.rescanUntil = -1;
    await this.saveCursor(cursor);
    progress.cursorBlockTime = timestamp;
    // Every block stamped before it is processed: invoices waiting for the chain past expires_at learn it.
    actors.chainTimeAdvanced(this.deps.network, timestamp);
    progress.lastBlockAt = this.deps.clock.now();
    progress.failures = 0;
    this.deps.note('committed', { cursor: height, hash, took_ms: Date.now() - started });
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
    if (invoiceUuid && actors.has(invoiceUuid)) {
      // The invoice decides whether it takes the transfer (its target, its late window); what it
      // does not take is recorded as unattributed below, never dropped.
      const refused = await actors.deliverTransfer(
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
        tracked.set(key, { invoiceUuid, blockHeight: t.blockHeight, blockHash: t.blockHash, confirmations, required: await this.deps.requiredFor(invoiceUuid) });
        return;
      }
      return intake.recordUnattributed(t, confirmations, refused);
    }
    await intake.recordUnattributed(t, confirmations, invoiceUuid ? 'invoice_closed' : intake.reasonFor(t));
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
