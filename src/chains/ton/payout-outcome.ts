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

/** Reads a payout's trail: our jetton wallet, then the payee's jetton wallet; the service wallet for its seqnos. */
export class PayoutOutcomes {
  constructor(private readonly o: PayoutOutcomeOptions) {}

  async of(queryId: bigint, sinceLt: bigint): Promise<PayoutOutcome> {
    let transfer: Transaction | null = null;
    const bounces: Transaction[] = [];
    // Newest first: a bounce (later) is met before the transfer it answers.
    await this.history(this.o.jettonWallet, sinceLt, (tx) => {
      if (bouncedTransferQueryId(tx) === queryId) bounces.push(tx);
      if (isOurTransfer(tx, this.o.serviceWallet, queryId)) transfer = tx;
      return transfer !== null;
    });
    if (transfer === null) return 'none';
    if (!succeeded(transfer)) return 'refused';
    const sent = sentTransferOf(transfer);
    if (sent === null) return 'refused'; // it ran without sending anything on: nothing left us
    if (bounces.some((tx) => isBounceFrom(tx, sent.payeeWallet, queryId))) return 'bounced';
    let arrival: 'arrived' | 'refused' | null = null;
    await this.history(sent.payeeWallet, sent.createdLt, (tx) => {
      arrival = arrivalOf(tx, this.o.jettonWallet, sent);
      return arrival !== null;
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

  /** Visits `address`'s transactions above `sinceLt`, newest first, until `visit` returns true. */
  private async history(address: Address, sinceLt: bigint, visit: (tx: Transaction) => boolean): Promise<void> {
    let next = (await this.o.rpc.state(address)).last;
    while (next !== null && next.lt > sinceLt) {
      const page: Transaction[] = await this.o.rpc.transactions(address, next, this.o.pageSize, sinceLt);
      if (page.length === 0) return;
      for (const tx of page) {
        if (tx.lt <= sinceLt || visit(tx)) return;
      }
      const tail = page[page.length - 1]!;
      next = tail.prevTransactionLt === 0n ? null : { lt: tail.prevTransactionLt, hash: hashOf(tail.prevTransactionHash) };
    }
  }
}
