import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import { ConflictError, NotFoundError, UnavailableError } from '../../domain/errors';
import { computeInvoiceAmounts } from '../../domain/fees';
import { createInvoiceContext } from '../../domain/invoice-context';
import { canChangeNetwork } from '../../domain/invoice-step';
import { assertMeetsMinimum, type CreateInvoiceInput } from '../../domain/invoice-request';
import type { NetworkCode, NetworkSettings } from '../../domain/networks';
import type { ChainAdapter } from '../../chains/types';
import { Invoice, InvoicePayment, Merchant } from '../../store/entities';
import { allocateAddress, coolAddress } from '../../store/repos/address-pool';
import { canonicalDecimal } from '../../store/repos/network-settings';
import type { InvoiceActors } from './invoice-actors';
import { newMemo } from './memo';

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
}

export interface LoadedInvoice {
  readonly row: Invoice;
  readonly payments: InvoicePayment[];
}

interface DepositTarget {
  readonly address: string;
  readonly memo: string | null;
  readonly paymentUri: string;
}

/** The pool had no free address inside the transaction: refill outside it, then try again. */
class PoolEmptyError extends Error {
  override readonly name = 'PoolEmptyError';
  constructor(readonly network: NetworkCode) {
    super('address pool empty');
  }
}

const POOL_RETRIES = 3;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Creating invoices, choosing their network and reading them. Status changes belong to the actors. */
export class Invoices {
  constructor(private readonly deps: InvoiceDeps) {}

  async create(merchantId: string, input: CreateInvoiceInput, network: NetworkSettings | null): Promise<{ loaded: LoadedInvoice; created: boolean }> {
    const em = this.deps.orm.em.fork();
    const merchant = await em.findOneOrFail(Merchant, { id: merchantId });
    if (input.orderId !== null) {
      const existing = await this.findByOrderId(em, merchantId, input.orderId);
      if (existing) return { loaded: existing, created: false };
    }
    const uuid = randomUUID();
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + input.lifetimeMinutes * 60_000);
    const amounts = computeInvoiceAmounts({
      amount: input.amount,
      feePayer: input.feePayer,
      platformFeePercent: canonicalDecimal(merchant.platformFeePercent),
      buyerNetworkFee: network?.buyerNetworkFee ?? null,
      tokenDecimals: network?.tokenDecimals ?? null,
    });
    const row = new Invoice(uuid, merchantId, 'pending', input.amount, amounts.platformFee, amounts.networkFee, amounts.payAmount, amounts.merchantNet, input.feePayer, input.metadataJson, expiresAt, now);
    Object.assign(row, { orderId: input.orderId, title: input.title, webhookUrl: input.webhookUrl, returnUrl: input.returnUrl, cancelUrl: input.cancelUrl });
    row.requiredConfirmations = network?.requiredConfirmations ?? 0;
    const spawned = this.deps.actors.spawn(
      createInvoiceContext({ uuid, payAmount: amounts.payAmount, requiredConfirmations: row.requiredConfirmations, expiresAt, now, lateWindowMs: this.deps.lateWindowMs, underpaymentTolerance: canonicalDecimal(merchant.underpaymentTolerance) }),
    );
    try {
      // No transaction ever waits for a refill: that needs a connection of its own (pool exhaustion).
      for (let attempt = 0; ; attempt++) {
        try {
          await this.deps.orm.em.fork().transactional(async (tx) => {
            if (network) Object.assign(row, { network: network.code, ...(await this.depositTarget(tx, network, uuid, amounts.payAmount)) });
            row.actorSnapshot = spawned.persistedSnapshot;
            tx.persist(row);
            await tx.flush();
          });
          break;
        } catch (err) {
          if (!(err instanceof PoolEmptyError) || attempt >= POOL_RETRIES) throw err;
          await this.deps.refillNow(err.network);
        }
      }
    } catch (err) {
      spawned.actor.stop();
      // A concurrent create with the same order_id won: answer with that invoice (idempotent, 200).
      if (err instanceof UniqueConstraintViolationException && input.orderId !== null) {
        const existing = await this.findByOrderId(this.deps.orm.em.fork(), merchantId, input.orderId);
        if (existing) return { loaded: existing, created: false };
      }
      throw err;
    }
    this.deps.actors.adopt(uuid, row.network, spawned);
    if (network) this.deps.onAddressAllocated(network.code);
    this.deps.logger.info({ invoiceUuid: uuid, merchantId, network: row.network, amount: input.amount }, 'invoice created');
    return { loaded: { row, payments: [] }, created: true };
  }

  async get(uuid: string, merchantId: string | null): Promise<LoadedInvoice> {
    if (!UUID.test(uuid)) throw new NotFoundError('invoice', uuid);
    const em = this.deps.orm.em.fork();
    const row = await em.findOne(Invoice, merchantId ? { uuid, merchantId } : { uuid });
    if (!row) throw new NotFoundError('invoice', uuid);
    return { row, payments: await em.find(InvoicePayment, { invoiceUuid: uuid }) };
  }

  /**
   * Sets or changes the network of a pending invoice with nothing received (409 otherwise):
   * fees, deposit address or memo and required confirmations are recomputed, the old address freed.
   */
  async setNetwork(uuid: string, merchantId: string | null, network: NetworkSettings): Promise<LoadedInvoice> {
    const { row: current } = await this.get(uuid, merchantId);
    const ctx = this.deps.actors.context(uuid);
    if (!ctx || current.status !== 'pending' || !canChangeNetwork(ctx)) {
      throw new ConflictError('network_change_not_allowed', 'the network can only be changed while the invoice is pending and nothing was received', 'network', { status: current.status });
    }
    assertMeetsMinimum(canonicalDecimal(current.amount), network.minInvoice, network.code);
    const merchant = await this.deps.orm.em.fork().findOneOrFail(Merchant, { id: current.merchantId });
    const amounts = computeInvoiceAmounts({
      amount: canonicalDecimal(current.amount),
      feePayer: current.feePayer,
      platformFeePercent: canonicalDecimal(merchant.platformFeePercent),
      buyerNetworkFee: network.buyerNetworkFee,
      tokenDecimals: network.tokenDecimals,
    });
    // The new address must be free now; refill first (outside the transaction) if the pool is dry.
    if (network.depositMode === 'address_pool') await this.deps.refillNow(network.code).catch(() => undefined);
    await this.deps.actors.send(uuid, { type: 'NETWORK_CHANGED', payAmount: amounts.payAmount, requiredConfirmations: network.requiredConfirmations, at: this.deps.clock.now().toISOString() }, async (em, row) => {
      if (row.status !== 'pending' || canonicalDecimal(row.receivedAmount) !== '0') {
        throw new ConflictError('network_change_not_allowed', 'the invoice is no longer pending', 'network');
      }
      if (row.network && !row.memo) await coolAddress(em, row.network, uuid, new Date(this.deps.clock.now().getTime() + this.deps.lateWindowMs));
      Object.assign(row, {
        network: network.code,
        platformFee: amounts.platformFee,
        networkFee: amounts.networkFee,
        payAmount: amounts.payAmount,
        merchantNet: amounts.merchantNet,
        requiredConfirmations: network.requiredConfirmations,
        ...(await this.depositTarget(em, network, uuid, amounts.payAmount)),
      });
    });
    this.deps.actors.setNetwork(uuid, network.code);
    this.deps.onAddressAllocated(network.code);
    this.deps.logger.info({ invoiceUuid: uuid, network: network.code }, 'invoice network set');
    return this.get(uuid, merchantId);
  }

  private async findByOrderId(em: EntityManager, merchantId: string, orderId: string): Promise<LoadedInvoice | null> {
    const row = await em.findOne(Invoice, { merchantId, orderId });
    return row ? { row, payments: await em.find(InvoicePayment, { invoiceUuid: row.uuid }) } : null;
  }

  private async depositTarget(em: EntityManager, network: NetworkSettings, uuid: string, payAmount: string): Promise<DepositTarget> {
    const adapter = this.deps.adapters.get(network.code);
    if (!adapter) throw new UnavailableError('network_unavailable', `${network.code} is not available on this daemon`);
    let address: string;
    let memo: string | null = null;
    if (network.depositMode === 'master_memo') {
      address = adapter.sharedDepositAddress();
      memo = newMemo();
    } else {
      const allocated = await allocateAddress(em, network.code, uuid, this.deps.clock.now());
      if (!allocated) throw new PoolEmptyError(network.code);
      address = allocated.address;
    }
    return { address, memo, paymentUri: adapter.paymentLink({ address, amount: payAmount, memo }) };
  }
}
