import type { MessageRelaxed } from '@ton/core';
import type { PayoutBook } from '../types';
import { MAX_TRANSFERS_PER_MESSAGE } from './payout-message';

/**
 * Batches: up to 4 payouts in one external message of the service wallet (wallet v4), so a queue of
 * payouts moves 4 per block instead of 1 (a wallet's next seqno is accepted only once the previous
 * one is committed: one external per wallet per block).
 *
 * A batch is every message signed at one seqno. Its versions are NESTED: each new version carries
 * every transfer of the previous one unchanged (same message body) plus one, and only one version can
 * run (they share the seqno). So whichever version runs, each payout either finds its own transfer
 * on the chain (by query_id, from our wallet) or sees its seqno consumed by a version that is a
 * subset of its own (an earlier version of its batch: its message can never run, sign it anew).
 * Anything else at its seqno is foreign (needs an operator).
 *
 * Invariants that keep a transfer from being paid twice:
 * - a new version adds a payout only while every earlier member's row holds a version of this batch
 *   (committed: PayoutBook.storedTxHash); a member whose row may still roll back is never carried by
 *   another member's message;
 * - a first signing joins only the highest batch, not sealed, with room; a batch is sealed once a
 *   version of it may have been sent (its seqno is the wallet's: the node accepts it);
 * - a payout whose versions could still run is signed again only at the same seqno, with every
 *   transfer of the largest version known (nested again).
 * State is per process (one daemon signs at a time); after a restart each row rebroadcasts its own
 * version, and the nesting still holds.
 */
export interface BatchMember {
  readonly message: MessageRelaxed;
  /** The transfer's body hash (hex): the same in every version. */
  readonly key: string;
  /** The withdrawal, when this process signed it (null: taken from a stored version, committed by construction). */
  readonly id: string | null;
  committed: boolean;
  /** Hashes of the versions given to this member's row (its row holds one of them once committed). */
  readonly versions: Set<string>;
}

export interface StoredVersion {
  readonly raw: string;
  readonly size: number;
  readonly validUntil: number;
}

export class Batch {
  readonly members: BatchMember[] = [];
  /** A version of it may have been sent: no first signing joins it any more. */
  sealed = false;
  /** Versions stored on a row (their broadcast was asked, so their row is committed). */
  private readonly storedVersions: StoredVersion[] = [];

  constructor(readonly seqno: number) {}

  member(key: string): BatchMember | undefined {
    return this.members.find((m) => m.key === key);
  }

  add(member: Omit<BatchMember, 'versions'>): BatchMember {
    const existing = this.member(member.key);
    if (existing) {
      existing.committed ||= member.committed;
      return existing;
    }
    const added = { ...member, versions: new Set<string>() };
    this.members.push(added);
    return added;
  }

  remove(key: string): void {
    const i = this.members.findIndex((m) => m.key === key);
    if (i >= 0) this.members.splice(i, 1);
  }

  get full(): boolean {
    return this.members.length >= MAX_TRANSFERS_PER_MESSAGE;
  }

  /** Every member but `except` is committed (asks the book about those not known so yet). */
  async committedBut(except: string | null, book: PayoutBook | undefined): Promise<boolean> {
    for (const m of this.members) {
      if (m.committed || m.key === except) continue;
      if (m.id === null || !book?.storedTxHash) return false;
      const stored = await book.storedTxHash(m.id);
      if (stored === null || !m.versions.has(stored)) return false;
      m.committed = true;
    }
    return true;
  }

  /** A version's row is committed (the host asks to broadcast only stored payouts). */
  stored(key: string | null, version: StoredVersion): void {
    const m = key === null ? undefined : this.member(key);
    if (m) m.committed = true;
    if (!this.storedVersions.some((v) => v.raw === version.raw)) this.storedVersions.push(version);
  }

  /** The version to send at chain time `now`: the largest stored one still valid, the latest-valid of those. */
  best(now: number): StoredVersion | undefined {
    let best: StoredVersion | undefined;
    for (const v of this.storedVersions) {
      if (v.validUntil < now) continue;
      if (best === undefined || v.size > best.size || (v.size === best.size && v.validUntil > best.validUntil)) best = v;
    }
    return best;
  }
}

/** The batches of one service wallet in this process, by seqno. */
export class PayoutBatches {
  private readonly bySeqno = new Map<number, Batch>();

  at(seqno: number): Batch | undefined {
    return this.bySeqno.get(seqno);
  }

  /** A new batch at `seqno`, replacing whatever this process remembered there. */
  start(seqno: number): Batch {
    const batch = new Batch(seqno);
    this.bySeqno.set(seqno, batch);
    return batch;
  }

  /** The batch at or above the wallet's seqno holding this transfer. */
  holding(key: string, walletSeqno: number): Batch | undefined {
    for (const b of this.bySeqno.values()) if (b.seqno >= walletSeqno && b.member(key)) return b;
    return undefined;
  }

  /** The highest batch at or above the wallet's seqno. */
  top(walletSeqno: number): Batch | undefined {
    let top: Batch | undefined;
    for (const b of this.bySeqno.values()) if (b.seqno >= walletSeqno && (top === undefined || b.seqno > top.seqno)) top = b;
    return top;
  }

  /** Forgets batches below the wallet's seqno: they ran, or another message took their seqno. */
  prune(walletSeqno: number): void {
    for (const seqno of this.bySeqno.keys()) if (seqno < walletSeqno) this.bySeqno.delete(seqno);
  }
}

const batches = new Map<string, PayoutBatches>();

/** One set of batches per service wallet in this process, shared by adapters that sign for it. */
export function payoutBatches(walletRaw: string): PayoutBatches {
  let b = batches.get(walletRaw);
  if (!b) batches.set(walletRaw, (b = new PayoutBatches()));
  return b;
}
