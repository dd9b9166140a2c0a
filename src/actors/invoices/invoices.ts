import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import { flatUuid } from '../flat-uuid';
import { ConflictError, NotFoundError, UnavailableError } from '../../domain/errors';
import { computeInvoiceAmounts } from '../../domain/fees';
import { createInvoiceContext, type DepositTarget as MachineTarget } from '../../domain/invoice-context';
import { canCancel, canChangeNetwork } from '../../domain/invoice-step';
import { assertMeetsMinimum, type CreateInvoiceInput } from '../../domain/invoice-request';
import type { NetworkCode, NetworkSettings } from '../../domain/networks';
import type { ChainAdapter } from '../../chains/types';
import { Invoice } from '../../store/entities';
import { allocateAddress, coolAddress, reclaimAddress } from '../../store/repos/address-pool';
import { PoolEmptyError, withPoolWait, type PoolWaitObserver } from './pool-wait';
import { NetworkChangeLimit } from './network-change-limit';
import { insertInvoice, insertInvoiceOnReserved, insertInvoicesOnReserved, loadInvoice, type ReservedInsert } from '../../store/repos/invoice-rows';
import { isUniqueViolation, RawSql } from '../../store/raw-sql';
import { canonicalDecimal } from '../../store/repos/network-settings';
import type { InvoiceActors } from './invoice-actors';
import { OpenInvoiceReads } from './open-invoice-reads';
import type { LoadedInvoice } from './loaded-invoice';
import { AddressReserve } from './address-reserve';
import { newMemo } from './memo';
import { RequestLoad } from '../../lib/request-load';
import { KeyedBatches, type BatchOutcome } from '../keyed-batches';

export interface InvoiceDeps {
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly actors: InvoiceActors;
  readonly adapters: ReadonlyMap<NetworkCode, ChainAdapter>;
  readonly lateWindowMs: number;
  /** Called after an address was taken from a pool, to refill it before it runs dry. */
  readonly onAddressAllocated: (network: NetworkCode) => void;
  /** Derive more addresses now (committed on its own) when the pool is empty. */
  readonly refillNow: (network: NetworkCode) => Promise<void>;
  /** Counts each creation as a request in flight (background work yields to it). */
  readonly requestLoad?: RequestLoad;
  /** How long a request that needs an address waits for one (then 503 `pool_exhausted`); default POOL_WAIT_MS. */
  readonly poolWaitMs?: number;
  readonly poolObserver?: PoolWaitObserver;
}

/** A request waits this long at most for a deposit address (a refill of 200 took well under it, measured). */
export const POOL_WAIT_MS = 3_000;

export type { LoadedInvoice } from './loaded-invoice';

interface DepositTarget {
  readonly address: string;
  readonly memo: string | null;
  readonly paymentUri: string;
}

/**
 * Addresses reserved per round trip for new invoices (address-reserve.ts); the next batch is
 * reserved when half is left. A reservation took ~5 ms under load (measured): half of 64 lasts ~15 ms
 * at 2,000 invoices/s, so takers no longer wait for it (with 32, reserved only once the list was
 * empty, ~2,000 of the invoices of an 8 s window waited ~2.4 ms each).
 */
const RESERVE_BATCH = 64;
const ORDER_UNIQUE = 'invoices_merchant_order_unique';
/** New invoices of one network inserted by one statement at most (KeyedBatches). */
const INSERT_BATCH_MAX = 64;
/**
 * SQLSTATE classes of errors the database raised for a statement, after which an autocommit
 * statement certainly wrote nothing: data exception, integrity constraint violation, transaction
 * rollback. Decided by the code, never by the message.
 */
const REFUSED_CLASSES = new Set(['22', '23', '40']);
const TERMS_TTL_MS = 5_000;
const TERMS_CACHE_MAX = 10_000;

interface MerchantTerms {
  readonly platformFeePercent: string;
  readonly underpaymentTolerance: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Creating invoices, choosing their network and reading them. Status changes belong to the actors. */
export class Invoices {
  private readonly sql: RawSql;
  private readonly createdLog: Logger;
  private readonly reads: OpenInvoiceReads;
  private readonly reserve: AddressReserve;
  private readonly termsCache = new Map<string, { terms: MerchantTerms; until: number }>();
  /** Group commit of new invoices on reserved addresses, per network: what arrives while a statement runs goes in the next one. */
  private readonly reservedInserts = new KeyedBatches<ReservedInsert, boolean>((_network, inputs) => this.insertReserved(inputs), INSERT_BATCH_MAX);

  /** Creations in flight (deps.requestLoad, the daemon's; a private one when none is given). */
  private readonly requestLoad: RequestLoad;
  private readonly changeLimit = new NetworkChangeLimit();
  private readonly poolWait: Parameters<typeof withPoolWait>[1];

  constructor(private readonly deps: InvoiceDeps) {
    this.requestLoad = deps.requestLoad ?? new RequestLoad();
    this.poolWait = { refillNow: deps.refillNow, waitMs: deps.poolWaitMs ?? POOL_WAIT_MS, observer: deps.poolObserver };
    this.sql = new RawSql(deps.orm);
    this.reserve = new AddressReserve({ query: this.sql.query, clock: deps.clock, batch: RESERVE_BATCH });
    this.reads = new OpenInvoiceReads((uuid) => deps.actors.has(uuid));
    deps.actors.onCommit((uuid) => this.reads.invalidate(uuid));

    // One line per request of ids, a status and an amount, never a secret: no redaction pass (it
    // cost ~4x the line itself, measured).
    this.createdLog = deps.logger.child({}, { redact: [] });
  }

  /**
   * Counted as a request in flight while it runs: payout steps yield to it (RequestLoad).
   * `requestId`: the gateway's, put on this call's log lines.
   */
  create(merchantId: string, input: CreateInvoiceInput, network: NetworkSettings | null, requestId?: string): Promise<{ loaded: LoadedInvoice; created: boolean }> {
    return this.requestLoad.around(() => this.createCounted(merchantId, input, network, requestId));
  }

  private async createCounted(merchantId: string, input: CreateInvoiceInput, network: NetworkSettings | null, requestId: string | undefined): Promise<{ loaded: LoadedInvoice; created: boolean }> {
    const merchant = await this.terms(merchantId);
    const uuid = flatUuid();
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + input.lifetimeMinutes * 60_000);
    const amounts = computeInvoiceAmounts({
      amount: input.amount,
      feePayer: input.feePayer,
      platformFeePercent: merchant.platformFeePercent,
      buyerNetworkFee: network?.buyerNetworkFee ?? null,
      tokenDecimals: network?.tokenDecimals ?? null,
    });
    const row = new Invoice(
      uuid,
      merchantId,
      'pending',
      input.amount,
      amounts.platformFee,
      amounts.networkFee,
      amounts.payAmount,
      amounts.merchantNet,
      input.feePayer,
      input.metadataJson,
      expiresAt,
      now,
    );
    Object.assign(row, { orderId: input.orderId, title: input.title, webhookUrl: input.webhookUrl, returnUrl: input.returnUrl, cancelUrl: input.cancelUrl });
    row.requiredConfirmations = network?.requiredConfirmations ?? 0;
    const spawned = this.deps.actors.spawn(
      createInvoiceContext({
        uuid,
        payAmount: amounts.payAmount,
        requiredConfirmations: row.requiredConfirmations,
        expiresAt,
        now,
        lateWindowMs: this.deps.lateWindowMs,
        underpaymentTolerance: merchant.underpaymentTolerance,
        network: network?.code ?? null,
      }),
    );
    row.actorSnapshot = spawned.persistedSnapshot;
    try {
      // One statement: the row with the actor's snapshot, and on a pool network its address. No
      // transaction ever waits for a refill (that needs a connection of its own): an empty pool
      // is waited for outside any, for a bounded time, then answered 503 with nothing written.
      if (network?.depositMode === 'address_pool') {
        await withPoolWait(network.code, this.poolWait, () => this.insertOnPoolAddress(row, network, amounts.payAmount, now));
      } else {
        if (network) Object.assign(row, { network: network.code, ...this.memoTarget(network, amounts.payAmount) });
        await insertInvoice(this.sql.query, row);
      }
    } catch (err) {
      this.deps.actors.discard(spawned);
      // order_id is unique per merchant (the constraint decides, also between concurrent creates):
      // a repeated one answers with the original invoice (idempotent, 200).
      if (input.orderId !== null && isUniqueViolation(err, ORDER_UNIQUE)) {
        const existing = await loadInvoice(this.sql.query, { merchantId, orderId: input.orderId });
        if (existing) return { loaded: existing, created: false };
      }
      throw err;
    }
    this.deps.actors.adopt(uuid, row.network, spawned);
    if (network) this.deps.onAddressAllocated(network.code);
    this.createdLog.info({ invoiceUuid: uuid, merchantId, orderId: input.orderId ?? undefined, network: row.network, amount: input.amount, requestId }, 'invoice created');
    return { loaded: { row, payments: [] }, created: true };
  }

  /**
   * The invoice as committed (another merchant's: not found). An open invoice's rows are kept
   * between reads until its actor commits again (OpenInvoiceReads): polling costs no database read.
   * The result is shared: never mutate it.
   */
  async get(uuid: string, merchantId: string | null): Promise<LoadedInvoice> {
    if (!UUID.test(uuid)) throw new NotFoundError('invoice', uuid);
    const loaded = await this.reads.read(uuid, () => loadInvoice(this.sql.query, { uuid, merchantId }));
    if (!loaded || (merchantId !== null && loaded.row.merchantId !== merchantId)) throw new NotFoundError('invoice', uuid);
    return loaded;
  }

  /**
   * Sets or changes the network of a pending invoice with nothing received (409 otherwise):
   * fees, deposit address or memo and required confirmations are recomputed, the old address freed.
   */
  async setNetwork(uuid: string, merchantId: string | null, network: NetworkSettings, requestId?: string): Promise<LoadedInvoice> {
    const { row: current } = await this.get(uuid, merchantId);
    const ctx = this.deps.actors.context(uuid);
    if (!ctx || current.status !== 'pending' || !canChangeNetwork(ctx)) {
      throw new ConflictError('network_change_not_allowed', 'the network can only be changed while the invoice is pending and nothing was received', 'network', { status: current.status });
    }
    assertMeetsMinimum(canonicalDecimal(current.amount), network.minInvoice, network.code);
    const merchant = await this.terms(current.merchantId);
    const amounts = computeInvoiceAmounts({
      amount: canonicalDecimal(current.amount),
      feePayer: current.feePayer,
      platformFeePercent: merchant.platformFeePercent,
      buyerNetworkFee: network.buyerNetworkFee,
      tokenDecimals: network.tokenDecimals,
    });
    this.changeLimit.take(uuid);
    try {
      // An empty pool is waited for outside the transaction (bounded; then 503, nothing changed).
      const change = () => this.changeNetwork(uuid, network, amounts);
      await (network.depositMode === 'address_pool' ? withPoolWait(network.code, this.poolWait, change) : change());
    } catch (err) {
      this.changeLimit.refund(uuid);
      throw err;
    }
    this.deps.actors.setNetwork(uuid, network.code);
    this.deps.onAddressAllocated(network.code);
    this.deps.logger.info({ invoiceUuid: uuid, network: network.code, requestId }, 'invoice network set');
    return this.get(uuid, merchantId);
  }

  /** One try of a network change in the actor's unit of work: PoolEmptyError (nothing written) when no address is free. */
  private async changeNetwork(uuid: string, network: NetworkSettings, amounts: ReturnType<typeof computeInvoiceAmounts>): Promise<void> {
    const notPending = (): ConflictError => new ConflictError('network_change_not_allowed', 'the invoice is no longer pending', 'network');
    const chosen: { deposit?: DepositTarget; target?: MachineTarget } = {};
    const at = this.deps.clock.now().toISOString();
    // The new address is allocated in the actor's transaction before the machine sees the change:
    // the machine keeps it as the invoice's target, so a transfer matched to the old network or
    // address before this commit is not counted here (it is recorded as unattributed).
    await this.deps.actors.send(
      uuid,
      async (em) => {
        const row = await em.findOneOrFail(Invoice, { uuid });
        if (row.status !== 'pending' || canonicalDecimal(row.receivedAmount) !== '0') throw notPending();
        if (row.network && !row.memo) await coolAddress(em, row.network, uuid, new Date(this.deps.clock.now().getTime() + this.deps.lateWindowMs));
        const deposit = await this.depositTarget(em, network, uuid, amounts.payAmount);
        const target = { network: network.code, address: this.adapter(network).normalizeAddress(deposit.address), memo: deposit.memo };
        Object.assign(chosen, { deposit, target });
        return { type: 'NETWORK_CHANGED', payAmount: amounts.payAmount, requiredConfirmations: network.requiredConfirmations, target, at };
      },
      async (_em, row) => {
        // The machine refused (expired or paid meanwhile): the row must not change either.
        const taken = this.deps.actors.context(uuid)?.target;
        if (row.status !== 'pending' || !chosen.deposit || !chosen.target || taken?.network !== chosen.target.network || taken.address !== chosen.target.address || taken.memo !== chosen.target.memo) {
          throw notPending();
        }
        Object.assign(row, {
          network: network.code,
          platformFee: amounts.platformFee,
          networkFee: amounts.networkFee,
          payAmount: amounts.payAmount,
          merchantNet: amounts.merchantNet,
          requiredConfirmations: network.requiredConfirmations,
          ...chosen.deposit,
        });
      },
    );
  }

  /**
   * Cancels a pending invoice with nothing received (409 `cancel_not_allowed` otherwise). The actor
   * decides (CANCEL is taken only while canCancel holds at its time); the address stays watched
   * through the late-payment window like an expired invoice's, so money sent anyway is recorded.
   */
  async cancel(uuid: string, merchantId: string | null, requestId?: string): Promise<LoadedInvoice> {
    const { row: current } = await this.get(uuid, merchantId);
    const refused = (status: string): ConflictError =>
      new ConflictError('cancel_not_allowed', `only a pending invoice with nothing received can be canceled (status ${status})`, undefined, { status });
    const ctx = this.deps.actors.context(uuid);
    if (!ctx || current.status !== 'pending' || !canCancel(ctx)) throw refused(current.status);
    // Judged in the actor's queue: a payment, the expiry or another cancel may have come first.
    let wasPending = false;
    await this.deps.actors.send(uuid, async () => {
      wasPending = this.deps.actors.context(uuid)?.status === 'pending';
      return { type: 'CANCEL', at: this.deps.clock.now().toISOString() };
    });
    // The committed row, not the actor: with no late window the actor has closed already.
    const after = await this.get(uuid, merchantId);
    if (!wasPending || after.row.status !== 'canceled') throw refused(after.row.status);
    this.deps.logger.info({ invoiceUuid: uuid, merchantId: current.merchantId, requestId }, 'invoice canceled');
    return after;
  }

  /**
   * The pricing terms of a merchant, cached briefly: they are read on every create and change only
   * through the merchant's own row (a few seconds of staleness at most, like the signing secret).
   */
  private async terms(merchantId: string): Promise<MerchantTerms> {
    const now = Date.now();
    const hit = this.termsCache.get(merchantId);
    if (hit && hit.until > now) return hit.terms;
    const rows = await this.sql.query<{ platform_fee_percent: string; underpayment_tolerance: string }>('select platform_fee_percent, underpayment_tolerance from merchants where id = $1', [
      merchantId,
    ]);
    const r = rows[0];
    if (!r) throw new NotFoundError('merchant', merchantId);
    const terms = { platformFeePercent: canonicalDecimal(r.platform_fee_percent), underpaymentTolerance: canonicalDecimal(r.underpayment_tolerance) };
    if (this.termsCache.size >= TERMS_CACHE_MAX) this.termsCache.clear();
    this.termsCache.set(merchantId, { terms, until: now + TERMS_TTL_MS });
    return terms;
  }

  /**
   * Inserts a new invoice on the next reserved address of `network`'s pool (one statement: the row
   * and the allocation). PoolEmptyError when the pool has no address available.
   */
  private async insertOnPoolAddress(row: Invoice, network: NetworkSettings, payAmount: string, now: Date): Promise<void> {
    const adapter = this.adapter(network);
    for (;;) {
      const reserved = await this.reserve.take(network.code);
      if (!reserved) throw new PoolEmptyError(network.code);
      const paymentUri = adapter.paymentLink({ address: reserved.address, derived: true, amount: payAmount, memo: null });
      Object.assign(row, { network: network.code, address: reserved.address, memo: null, paymentUri });
      let inserted: boolean;
      try {
        inserted = await this.reservedInserts.submit(network.code, { row, address: { network: network.code, derivationIndex: reserved.derivationIndex }, now });
      } catch (err) {
        // The statement failed as a whole: the address is still reserved (or, if the failure hid a
        // commit, allocated, and the next insert on it finds it not reserved and moves on).
        this.reserve.giveBack(network.code, reserved);
        throw err;
      }
      if (inserted) return;
      this.deps.logger.warn({ network: network.code, address: reserved.address }, 'reserved deposit address was taken meanwhile; using another');
    }
  }

  /**
   * The rows of a batch in one statement (insertInvoicesOnReserved): one WAL flush and one round
   * trip for all of them. Should the database refuse it (an order_id clash, also between two rows
   * of the batch: nothing of it was written), each row is inserted by a statement of its own, so
   * every caller gets the answer it would have got alone (the clash: its original invoice). Any
   * other error (a connection lost: the outcome unknown) goes to every caller, as it would alone.
   */
  private async insertReserved(inputs: readonly ReservedInsert[]): Promise<BatchOutcome<boolean>[]> {
    if (inputs.length > 1) {
      try {
        const inserted = await insertInvoicesOnReserved(this.sql.query, inputs);
        return inputs.map((i) => ({ ok: true, value: inserted.has(i.row.uuid) }));
      } catch (err) {
        const code = (err as { code?: unknown } | null)?.code;
        if (typeof code !== 'string' || !REFUSED_CLASSES.has(code.slice(0, 2))) return inputs.map(() => ({ ok: false, error: err }));
      }
    }
    return Promise.all(
      inputs.map(async (i): Promise<BatchOutcome<boolean>> => {
        try {
          return { ok: true, value: await insertInvoiceOnReserved(this.sql.query, i.row, i.address, i.now) };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
  }

  private memoTarget(network: NetworkSettings, payAmount: string): DepositTarget {
    const address = this.adapter(network).sharedDepositAddress();
    const memo = newMemo();
    return { address, memo, paymentUri: this.adapter(network).paymentLink({ address, amount: payAmount, memo }) };
  }

  private adapter(network: NetworkSettings): ChainAdapter {
    const adapter = this.deps.adapters.get(network.code);
    if (!adapter) throw new UnavailableError('network_unavailable', `${network.code} is not available on this daemon`);
    return adapter;
  }

  /** The deposit target of a network change, inside the actor's unit of work (setNetwork). */
  private async depositTarget(em: EntityManager, network: NetworkSettings, uuid: string, payAmount: string): Promise<DepositTarget> {
    if (network.depositMode === 'master_memo') return this.memoTarget(network, payAmount);
    // Back on a network it had: its own address there again, not one more from the pool.
    const now = this.deps.clock.now();
    const allocated = (await reclaimAddress(em, network.code, uuid, now)) ?? (await allocateAddress(em, network.code, uuid, now));
    if (!allocated) throw new PoolEmptyError(network.code);
    return { address: allocated.address, memo: null, paymentUri: this.adapter(network).paymentLink({ address: allocated.address, derived: true, amount: payAmount, memo: null }) };
  }
}
