import type { Address, Transaction } from '@ton/core';
import type { TonRpc } from './client';
import { hashOf } from './cursor';
import { bouncedTransferQueryId, succeeded } from './jetton-messages';
import { arrivalOf, externalOrderOf, isBounceFrom, isOurTransfer, sentTransferOf, type WalletOrder } from './payout-trail';

/**
 * Where a payout's jettons are, read from the chain:
 * - `none`: our jetton wallet holds no transfer from our service wallet with its query_id (yet);
 * - `refused`: our jetton wallet refused our transfer (too few jettons): nothing left us;
 * - `sent`: our jetton wallet sent them on, they have not arrived yet (pending, never completed);
 * - `arrived`: the payee's jetton wallet accepted them (the only proof of payment);
 * - `bounced`: the payee's jetton wallet refused them and the bounce brought them back to us.
 */
export type PayoutOutcome = 'none' | 'refused' | 'sent' | 'arrived' | 'bounced';

/** What consumed a seqno of the service wallet: the wallet's transaction that ran it, and the order. */
export interface SeqnoConsumer {
  readonly order: WalletOrder;
  /** The transaction's action phase sent its messages (false: the wallet ran the order but sent nothing, e.g. short of TON). */
  readonly sent: boolean;
}

export interface PayoutOutcomeOptions {
  readonly rpc: TonRpc;
  readonly serviceWallet: Address;
  readonly jettonWallet: Address;
  readonly pageSize: number;
}

/** What the polls of one payout read so far (each poll then reads only newer transactions). */
interface Trail {
  transfer: Transaction | null;
  readonly bounces: Transaction[];
  /** Our jetton wallet read down to this lt. */
  ourTo: bigint;
  /** The payee's jetton wallet read down to this lt (null: not yet). */
  payeeTo: bigint | null;
}

/** Reads a payout's trail: our jetton wallet, then the payee's jetton wallet; the service wallet for its seqnos. */
export class PayoutOutcomes {
  /** By query_id, while the payout is open in this process (dropped once it is decided). */
  private readonly trails = new Map<string, Trail>();

  constructor(private readonly o: PayoutOutcomeOptions) {}

  async of(queryId: bigint, sinceLt: bigint): Promise<PayoutOutcome> {
    const key = queryId.toString();
    const t = this.trails.get(key) ?? { transfer: null, bounces: [], ourTo: sinceLt, payeeTo: null };
    // Only what is new since the last poll is read: our jetton wallet above the lt read last time.
    t.ourTo = await this.history(this.o.jettonWallet, t.ourTo, (tx) => {
      if (bouncedTransferQueryId(tx) === queryId) t.bounces.push(tx);
      if (t.transfer === null && isOurTransfer(tx, this.o.serviceWallet, queryId)) t.transfer = tx;
      return false;
    });
    this.trails.set(key, t);
    const outcome = await this.judge(t, queryId);
    if (outcome !== 'none' && outcome !== 'sent') this.trails.delete(key);
    return outcome;
  }

  private async judge(t: Trail, queryId: bigint): Promise<PayoutOutcome> {
    if (t.transfer === null) return 'none';
    if (!succeeded(t.transfer)) return 'refused';
    const sent = sentTransferOf(t.transfer);
    if (sent === null) return 'refused'; // it ran without sending anything on: nothing left us
    if (t.bounces.some((tx) => isBounceFrom(tx, sent.payeeWallet, queryId))) return 'bounced';
    let arrival: 'arrived' | 'refused' | null = null;
    t.payeeTo = await this.history(sent.payeeWallet, t.payeeTo ?? sent.createdLt, (tx) => {
      arrival ??= arrivalOf(tx, this.o.jettonWallet, sent);
      return false;
    });
    // Refused downstream: the bounce is on its way back; `bounced` once it is on our jetton wallet.
    return arrival === 'arrived' ? 'arrived' : 'sent';
  }

  /** The service wallet's transaction that ran an external message at `seqno`; null when not found above `sinceLt`. */
  async consumerOf(seqno: number, sinceLt: bigint): Promise<SeqnoConsumer | null> {
    let found: SeqnoConsumer | null = null;
    let below = false;
    await this.history(this.o.serviceWallet, sinceLt, (tx) => {
      const order = externalOrderOf(tx);
      if (order === null) return false;
      if (order.seqno === seqno) found = { order, sent: succeeded(tx) };
      below = order.seqno < seqno;
      return found !== null || below; // seqnos only go down from here
    });
    return found;
  }

  /**
   * Visits `address`'s transactions above `sinceLt`, newest first, until `visit` returns true; returns
   * the newest lt read (the lt to stop at next time when everything above `sinceLt` was read).
   */
  private async history(address: Address, sinceLt: bigint, visit: (tx: Transaction) => boolean): Promise<bigint> {
    const top = (await this.o.rpc.state(address)).last;
    let next = top;
    while (next !== null && next.lt > sinceLt) {
      const page: Transaction[] = await this.o.rpc.transactions(address, next, this.o.pageSize, sinceLt);
      if (page.length === 0) return sinceLt;
      for (const tx of page) {
        if (tx.lt <= sinceLt || visit(tx)) return top!.lt;
      }
      const tail = page[page.length - 1]!;
      next = tail.prevTransactionLt === 0n ? null : { lt: tail.prevTransactionLt, hash: hashOf(tail.prevTransactionHash) };
    }
    return top === null || top.lt < sinceLt ? sinceLt : top.lt;
  }
}
