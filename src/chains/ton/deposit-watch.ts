import type { Address, Transaction } from '@ton/core';
import type { NetworkCode } from '../../domain/networks';
import { fromBaseUnits } from '../amount';
import { sleep } from '../sync/backoff';
import { RunLoop, type RunLoopStats } from '../sync/run-loop';
import type { ChainCursor, ChainWatch, ObservationSink } from '../types';
import type { AccountState, TonRpc } from './client';
import { decodeCursor, encodeCursor, hashOf, placeOf, sameTx, type TonCursor } from './cursor';
import { TonHistoryGapError } from './errors';
import { internalTransferOf } from './jetton-messages';

export interface DepositWatchOptions {
  readonly network: NetworkCode;
  readonly rpc: TonRpc;
  /** Our jetton wallet: get_wallet_address(service wallet) on the configured master. */
  readonly jettonWallet: Address;
  /** The service wallet, normalized (every deposit's `to`). */
  readonly serviceWallet: string;
  readonly decimals: number;
  readonly pageSize: number;
  readonly pollIntervalMs: number;
  readonly from: ChainCursor | null;
  readonly sink: ObservationSink;
  readonly onError?: (error: Error) => void;
  /** Backoff of a retried poll (default 500 ms doubling to 30 s). */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
}

/**
 * Deposits are read from our own jetton wallet, never from notifications to the service wallet.
 * Per poll one state call (getAddressInformation); only when its last transaction moved, pages of
 * getTransactions back to the cursor, emitted oldest first. So the cost does not grow with open
 * invoices (every invoice shares the wallet; memos are matched by the watcher in the database).
 * Invariants: the cursor advances only after every transfer up to it was accepted by the sink
 * (a failure replays the poll; payments are keyed by tx hash); no transaction between the cursor
 * and the head is skipped, however many pages lie between them.
 */
export class TonDepositWatch implements ChainWatch {
  private readonly loop: RunLoop;
  private cursor: TonCursor | null;
  private lastHead: number | null = null;

  constructor(private readonly o: DepositWatchOptions) {
    this.cursor = o.from === null ? null : decodeCursor(o.network, o.from);
    // The shared run loop: a provider's transient failure (TonProviderTransientError, once the
    // client's own retries are spent) is retried with backoff; anything else (a history gap, an
    // unreadable answer) stops the watch and the watcher halts with its alert.
    this.loop = new RunLoop({
      step: async () => {
        await this.poll();
        return true;
      },
      idle: (signal) => sleep(o.pollIntervalMs, signal),
      backoff: o.backoff ?? { initialMs: 500, maxMs: 30_000 },
      ...(o.onError ? { onError: o.onError } : {}),
    });
  }

  head(): number | null {
    return this.lastHead;
  }

  /** Read by the watcher for its health (consecutive failures of this watch). */
  status(): { consecutiveFailures: number } {
    return { consecutiveFailures: this.loop.stats().consecutiveFailures };
  }

  /** The shared run loop's figures (steps, retries, errors by class). */
  loopStats(): RunLoopStats {
    return this.loop.stats();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  private async poll(): Promise<void> {
    const state = await this.o.rpc.state(this.o.jettonWallet);
    const cursor = this.cursor;
    // A load-balanced endpoint may answer from a node behind the one we read last: no news.
    if (cursor !== null && state.seqno < cursor.seqno) return;
    this.lastHead = state.seqno;
    if (cursor !== null && !sameTx(cursor, state.last)) {
      if (state.last === null) throw new TonHistoryGapError(cursor.lt.toString(), '0');
      for (const tx of await this.since(cursor, state.last)) {
        if (this.loop.stopping) return;
        await this.emitTransfer(tx, state.seqno);
      }
    } else if (cursor !== null && state.seqno === cursor.seqno) {
      return;
    }
    await this.commit(state);
  }

  /** Our jetton wallet's transactions after the cursor, oldest first. */
  private async since(cursor: TonCursor, last: { lt: bigint; hash: Buffer }): Promise<Transaction[]> {
    const out: Transaction[] = [];
    let next = last;
    for (;;) {
      const page = await this.o.rpc.transactions(this.o.jettonWallet, next, this.o.pageSize, cursor.lt);
      if (page.length === 0) throw new TonHistoryGapError(cursor.lt.toString(), next.lt.toString());
      for (const tx of page) {
        if (tx.lt <= cursor.lt) {
          if (tx.lt === cursor.lt && cursor.hash !== null && !tx.hash().equals(cursor.hash)) throw new TonHistoryGapError(cursor.lt.toString(), tx.lt.toString());
          return out.reverse();
        }
        out.push(tx);
      }
      const tail = page[page.length - 1]!;
      // The page ended just above the cursor (the node stopped at to_lt): nothing lies between.
      if (cursor.hash !== null && tail.prevTransactionLt === cursor.lt) {
        if (!hashOf(tail.prevTransactionHash).equals(cursor.hash)) throw new TonHistoryGapError(cursor.lt.toString(), tail.prevTransactionLt.toString());
        return out.reverse();
      }
      if (tail.prevTransactionLt === 0n) {
        if (cursor.lt !== 0n) throw new TonHistoryGapError(cursor.lt.toString(), '0');
        return out.reverse();
      }
      next = { lt: tail.prevTransactionLt, hash: hashOf(tail.prevTransactionHash) };
    }
  }

  private async emitTransfer(tx: Transaction, seqno: number): Promise<void> {
    const credit = internalTransferOf(tx);
    if (credit === null || credit.amount <= 0n) return;
    const hash = tx.hash();
    await this.o.sink({
      kind: 'transfer',
      network: this.o.network,
      // The hash commits to the lt: (tx hash, lt) and (tx hash, 0) identify the same transaction.
      txHash: hash.toString('hex'),
      eventIndex: 0,
      blockHeight: seqno,
      blockHash: placeOf({ lt: tx.lt, hash }),
      from: credit.from?.toRawString() ?? '',
      to: this.o.serviceWallet,
      memo: credit.memo,
      amount: fromBaseUnits(credit.amount, this.o.decimals),
      blockTime: new Date(tx.now * 1000),
      // Seen in the state of masterchain block `seqno`, the cursor this step commits: one
      // confirmation, and final (a masterchain block is never replaced).
      confirmations: 1,
      final: true,
    });
  }

  /** Everything up to `state` was delivered: the cursor moves, and it is final (TON: one masterchain block, no reorgs). */
  private async commit(state: AccountState): Promise<void> {
    const next: TonCursor = { seqno: state.seqno, lt: state.last?.lt ?? 0n, hash: state.last?.hash ?? null };
    const cursor = encodeCursor(next);
    const hash = placeOf(next);
    const parentHash = this.cursor ? placeOf(this.cursor) : hash;
    if (this.loop.stopping) return;
    await this.o.sink({ kind: 'block', network: this.o.network, height: next.seqno, hash, parentHash, timestamp: new Date(state.utime * 1000), cursor });
    await this.o.sink({ kind: 'finalize', network: this.o.network, height: next.seqno, hash, cursor });
    this.cursor = next;
  }
}
