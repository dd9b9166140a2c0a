import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import type { NetworkCode } from '../../domain/networks';
import type { ChainAdapter, ChainCursor, ChainObservation, ChainWatch, TransferObservation } from '../../chains/types';
import { Invoice, UnattributedDeposit, WatcherCursor } from '../../store/entities';
import { addressOwner, allPoolAddresses } from '../../store/repos/address-pool';
import type { InvoiceActors } from '../invoices/invoice-actors';
import { WatchedSet } from './watched-set';

interface Tracked {
  readonly invoiceUuid: string;
  blockHeight: number;
  confirmations: number;
}

export type WatcherState = 'starting' | 'running' | 'paused' | 'halted' | 'stopped';

export interface WatcherStatusView {
  readonly network: NetworkCode;
  readonly mode: 'devnet' | 'live';
  readonly state: WatcherState;
  readonly head: number;
  readonly cursor: number;
  readonly lastBlockAt: Date | null;
  readonly lastError: string | null;
  readonly lastErrorAt: Date | null;
  readonly watched: number;
}

/**
 * The watcher of one network. It records what the chain shows and tells invoice actors; it never
 * decides a status. Invariants:
 * - the cursor is saved only after every observation of that block was committed by its invoice,
 *   so a crash replays (and a replay is counted once: payments are keyed by tx hash + event index);
 * - unfinal transfers are tracked in memory and rebuilt from `invoice_payments` at start;
 * - a transfer to one of our addresses that matches no open invoice is kept as unattributed.
 */
export class NetworkWatcher {
  private readonly watched = new WatchedSet();
  private readonly tracked = new Map<string, Tracked>();
  private watch: ChainWatch | null = null;
  private state: WatcherState = 'starting';
  private head = 0;
  private cursor: ChainCursor | null = null;
  private lastBlockAt: Date | null = null;
  private lastError: { message: string; at: Date } | null = null;
  private sharedAddress: string | null = null;

  constructor(
    private readonly deps: {
      network: NetworkCode;
      adapter: ChainAdapter;
      orm: MikroORM;
      logger: Logger;
      clock: Clock;
      actors: InvoiceActors;
      requiredConfirmations: () => Promise<number>;
    },
  ) {}

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
    if (saved?.paused) this.state = 'paused';
    // Unfinal transfers survive a restart through their payment rows.
    const rows = await em.execute<{ tx_hash: string; event_index: number; invoice_uuid: string; block_height: string; confirmations: number }[]>(
      `select p.tx_hash, p.event_index, p.invoice_uuid, p.block_height, p.confirmations from invoice_payments p join invoices i on i.uuid = p.invoice_uuid
       where p.network = ? and p.state = 'confirming' and i.open`,
      [network],
    );
    for (const r of rows) this.tracked.set(`${r.tx_hash}:${r.event_index}`, { invoiceUuid: r.invoice_uuid, blockHeight: Number(r.block_height), confirmations: r.confirmations });
    if (this.state !== 'paused') this.run();
  }

  private run(): void {
    this.state = 'running';
    this.watch = this.deps.adapter.watch({
      from: this.cursor,
      watched: this.watched,
      sink: (obs) => this.observe(obs),
      onError: (error) => {
        this.lastError = { message: error.message, at: this.deps.clock.now() };
        this.deps.logger.warn({ err: error, network: this.deps.network }, 'watcher error; the adapter retries');
      },
    });
  }

  async pause(): Promise<void> {
    if (this.state !== 'running') return;
    this.state = 'paused';
    await this.watch?.stop();
    this.watch = null;
    await this.savePaused(true);
  }

  async resume(): Promise<void> {
    if (this.state !== 'paused') return;
    await this.savePaused(false);
    this.run();
  }

  /** Scan again from `height` (credits nothing twice: payments are keyed by transfer). */
  async rescan(height: number, hash: string): Promise<void> {
    const wasRunning = this.state === 'running';
    await this.watch?.stop();
    this.watch = null;
    this.cursor = { height, hash };
    if (wasRunning) this.run();
  }

  status(): WatcherStatusView {
    return {
      network: this.deps.network,
      mode: this.deps.adapter.mode,
      state: this.state,
      head: this.watch?.head() ?? this.head,
      cursor: this.cursor?.height ?? 0,
      lastBlockAt: this.lastBlockAt,
      lastError: this.lastError?.message ?? null,
      lastErrorAt: this.lastError?.at ?? null,
      watched: this.watched.size(),
    };
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

  private async observe(obs: ChainObservation): Promise<void> {
    if (this.state === 'stopped') return;
    switch (obs.kind) {
      case 'block':
        return this.onBlock(obs.height, obs.hash);
      case 'transfer':
        return this.onTransfer(obs);
      case 'reorg':
        return this.onReorg(obs.commonAncestor);
      case 'finalize':
        return;
    }
  }

  private async onBlock(height: number, hash: string): Promise<void> {
    this.head = height;
    this.lastBlockAt = this.deps.clock.now();
    const required = await this.deps.requiredConfirmations();
    const at = this.deps.clock.now().toISOString();
    const sends: Promise<void>[] = [];
    for (const [key, t] of this.tracked) {
      const confirmations = Math.max(0, height - t.blockHeight + 1);
      if (confirmations === t.confirmations) continue;
      t.confirmations = confirmations;
      if (this.deps.actors.has(t.invoiceUuid)) sends.push(this.deps.actors.send(t.invoiceUuid, { type: 'CONFIRMATIONS', key, confirmations, at }));
      if (confirmations >= required) this.tracked.delete(key);
    }
    await Promise.all(sends);
    await this.saveCursor({ height, hash });
  }

  private async onTransfer(t: TransferObservation): Promise<void> {
    const key = `${t.txHash}:${t.eventIndex}`;
    const invoiceUuid = await this.resolveInvoice(t);
    const confirmations = Math.max(1, this.head - t.blockHeight + 1);
    if (invoiceUuid && this.deps.actors.has(invoiceUuid)) {
      this.tracked.set(key, { invoiceUuid, blockHeight: t.blockHeight, confirmations });
      await this.deps.actors.send(
        invoiceUuid,
        { type: 'TRANSFER_SEEN', payment: { txHash: t.txHash, eventIndex: t.eventIndex, from: t.from, amount: t.amount, blockHeight: t.blockHeight, confirmations }, at: this.deps.clock.now().toISOString() },
        undefined,
        { key, value: { network: t.network, toAddress: t.to, memo: t.memo, blockHash: t.blockHash } },
      );
      return;
    }
    await this.recordUnattributed(t, invoiceUuid ? 'invoice_closed' : this.reasonFor(t));
  }

  private reasonFor(t: TransferObservation): string {
    if (this.sharedAddress !== null && t.to === this.sharedAddress) return t.memo ? 'unknown_memo' : 'missing_memo';
    return 'free_pool_address';
  }

  private async resolveInvoice(t: TransferObservation): Promise<string | null> {
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
    await em.execute(
      `insert into unattributed_deposits (id, network, address, memo, tx_hash, event_index, amount, from_address, block_height, block_hash, confirmations, reason, state, seen_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?)
       on conflict (network, tx_hash, event_index) do update set state = case when unattributed_deposits.state = 'reverted' then 'open' else unattributed_deposits.state end,
         block_height = excluded.block_height, block_hash = excluded.block_hash`,
      [new UnattributedDeposit(t.network, t.to, t.memo, t.txHash, t.eventIndex, t.amount, t.from, t.blockHeight, t.blockHash, reason, this.deps.clock.now()).id,
        t.network, t.to, t.memo, t.txHash, t.eventIndex, t.amount, t.from, t.blockHeight, t.blockHash, Math.max(1, this.head - t.blockHeight + 1), reason, this.deps.clock.now()],
    );
    this.deps.logger.warn({ network: t.network, txHash: t.txHash, address: t.to, memo: t.memo, amount: t.amount, reason }, 'unattributed deposit recorded');
  }

  private async onReorg(ancestor: ChainCursor): Promise<void> {
    const at = this.deps.clock.now().toISOString();
    const sends: Promise<void>[] = [];
    for (const [key, t] of this.tracked) {
      if (t.blockHeight <= ancestor.height) continue;
      this.tracked.delete(key);
      if (this.deps.actors.has(t.invoiceUuid)) sends.push(this.deps.actors.send(t.invoiceUuid, { type: 'TRANSFER_REVERTED', key, at }));
    }
    await Promise.all(sends);
    await this.deps.orm.em.fork().execute(
      `update unattributed_deposits set state = 'reverted' where network = ? and state = 'open' and block_height > ?`,
      [this.deps.network, ancestor.height],
    );
    this.deps.logger.warn({ network: this.deps.network, commonAncestor: ancestor.height }, 'chain reorganisation: unfinal transfers above the common ancestor reverted');
    await this.saveCursor(ancestor);
  }

  private async saveCursor(cursor: ChainCursor): Promise<void> {
    this.cursor = cursor;
    await this.deps.orm.em.fork().execute(
      `insert into watcher_cursors (network, height, hash, paused, updated_at) values (?, ?, ?, false, ?)
       on conflict (network) do update set height = excluded.height, hash = excluded.hash, updated_at = excluded.updated_at`,
      [this.deps.network, cursor.height, cursor.hash, this.deps.clock.now()],
    );
  }

  private async savePaused(paused: boolean): Promise<void> {
    await this.deps.orm.em.fork().execute(`update watcher_cursors set paused = ? where network = ?`, [paused, this.deps.network]);
  }
}
