import { Address, type Cell } from '@ton/core';
import { keyPairFromSeed, type KeyPair } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { ValidationError } from '../../domain/errors';
import type { NetworkCode } from '../../domain/networks';
import { toBaseUnits } from '../amount';
import type { PayoutBook, PayoutRequest, PayoutStatus, SignedPayout } from '../types';
import type { TonRpc } from './client';
import { TonPayoutBatchBusyError, TonPayoutBroadcastError, TonPayoutGasShortError, TonPayoutResignUnprovenError, TonPayoutSeqnoConsumedError } from './errors';
import { seqnoBook } from './seqnos';
import { type Batch, payoutBatches, type PayoutBatches } from './payout-batches';
import { PayoutOutcomes } from './payout-outcome';
import { storedOrderOf } from './payout-trail';
import { jettonWalletRefusal } from './payee-check';
import { PAYOUT_GAS_NEEDED, payoutQueryId, signOrder, transferMessage } from './payout-message';

/**
 * Chain seconds allowed per seqno queued ahead: the wallet runs one external message per block and
 * the next batch goes out when a status poll sees its seqno committed, so a seqno takes a block or
 * two, more when polls are slow. valid_until stays bounded (chain time + TTL + this per queued
 * seqno), at every seqno, 0 included.
 */
export const QUEUE_SECONDS_PER_SEQNO = 20;

/** A first signing joins a batch only this many seqnos above the wallet's (see firstBatch). */
const JOIN_AHEAD = 2;

export interface TonPayoutsOptions {
  readonly network: NetworkCode;
  readonly rpc: TonRpc;
  readonly serviceSeed: Buffer;
  readonly jettonWallet: Address;
  readonly decimals: number;
  readonly ttlSeconds: number;
  readonly pageSize: number;
}

/** What a payout's signed_meta holds (JSON scalars). */
interface PayoutMeta {
  readonly nonce: number;
  readonly validUntil: number;
  readonly queryId: bigint;
  /** Our jetton wallet's last lt when signed: its outcome lies above. */
  readonly sinceLt: bigint;
  /** The service wallet's last lt when signed: the transaction that ran its seqno lies above (0: unknown, older rows). */
  readonly walletSinceLt: bigint;
}

/** Why a payout may be signed anew: its own seqno still waits (same seqno), or an earlier version of its batch took it (a new seqno). */
type Resign = { readonly seqno: number; readonly raw: string } | 'fresh';

/**
 * Payouts: jetton transfers ordered by the service wallet (wallet v4r2: seqno + valid_until), up to 4
 * per external message (payout-batches.ts), the TON side of the payout contract (chains/types.ts).
 * - completed only on proof of arrival: the payee's jetton wallet accepted our internal_transfer
 *   (payout-outcome.ts); our wallet's successful `transfer` alone is `pending`;
 * - reverted only on our own transfer refused by our jetton wallet (from our service wallet) or a
 *   bounce from the payee's jetton wallet; a stranger's `transfer` with our query_id changes nothing;
 * - `expired` once valid_until passed on chain time and the wallet's seqno, read after that time, is
 *   not past the payout's (re-signed at the SAME seqno with the batch's transfers: the wallet still
 *   waits for it), or once an earlier version of its own batch ran at its seqno (re-signed at a new one);
 * - its seqno run by a foreign message: `unknown`, and the broadcast this triggers raises
 *   payout_nonce_consumed (the withdrawal waits for an operator).
 */
export class TonPayouts {
  private readonly keyPair: KeyPair;
  private readonly wallet: WalletContractV4;
  private readonly walletRaw: string;
  /** SignedPayout.wallet: the payout book's key for the service wallet. */
  private readonly walletKey: string;
  private readonly outcomes: PayoutOutcomes;
  private readonly batches: PayoutBatches;
  /** Masterchain seqno at which a payout's arrival was first seen (confirmations count from it). */
  private readonly seenAt = new Map<string, number>();
  /** query_id -> why payoutStatus just reported `expired`; the host asks for the new attempt under the same row lock right after. */
  private readonly expired = new Map<string, Resign>();

  constructor(private readonly o: TonPayoutsOptions) {
    this.keyPair = keyPairFromSeed(o.serviceSeed);
    this.wallet = WalletContractV4.create({ workchain: 0, publicKey: this.keyPair.publicKey });
    this.walletRaw = this.wallet.address.toRawString();
    this.walletKey = `ton:${this.walletRaw}`;
    this.outcomes = new PayoutOutcomes({ rpc: o.rpc, serviceWallet: this.wallet.address, jettonWallet: o.jettonWallet, pageSize: o.pageSize });
    this.batches = payoutBatches(this.walletRaw);
  }

  async sign(request: PayoutRequest): Promise<SignedPayout> {
    let to: Address;
    try {
      to = Address.parse(request.to);
    } catch {
      throw new ValidationError('invalid_address', `not a TON address: ${request.to}`, 'address');
    }
    // Paid only to a wallet: a jetton wallet whitelisted before this check existed is refused here (the withdrawal fails, released).
    const refusal = (request.attempt ?? 0) === 0 ? await jettonWalletRefusal(this.o.rpc, request.to) : null;
    if (refusal) throw new ValidationError(refusal.code, refusal.message, 'address');
    const queryId = payoutQueryId(request.id);
    const mine = transferMessage(this.wallet.address, this.o.jettonWallet, {
      queryId,
      to,
      amount: toBaseUnits(request.amount, this.o.decimals),
      ...(request.comment !== undefined ? { comment: request.comment } : {}),
    });
    const key = mine.body.hash().toString('hex');
    const seqnos = seqnoBook(this.walletRaw);
    return seqnos.exclusive(async () => {
      const jw = await this.o.rpc.state(this.o.jettonWallet);
      const state = await this.walletState();
      this.batches.prune(state.seqno);
      const resign = (request.attempt ?? 0) > 0 ? this.expired.get(queryId.toString()) : undefined;
      if ((request.attempt ?? 0) > 0 && (resign === undefined || (resign !== 'fresh' && state.seqno > resign.seqno))) throw new TonPayoutResignUnprovenError(request.id, request.attempt ?? 0);
      const batch = resign !== undefined && resign !== 'fresh' ? await this.resignBatch(request.id, resign, key, request.book) : await this.firstBatch(request, key, mine, state.seqno, request.book);
      const size = batch.members.length;
      if (state.balance < PAYOUT_GAS_NEEDED * BigInt(size)) throw new TonPayoutGasShortError(this.wallet.address.toString(), state.balance.toString(), (PAYOUT_GAS_NEEDED * BigInt(size)).toString());
      const validUntil = state.utime + this.o.ttlSeconds + (batch.seqno - state.seqno) * QUEUE_SECONDS_PER_SEQNO;
      const cell = signOrder({ wallet: this.wallet, keyPair: this.keyPair, seqno: batch.seqno, validUntil, messages: batch.members.map((m) => m.message), deploy: !state.active });
      const signed = this.signedPayout(cell, { nonce: batch.seqno, validUntil, queryId, sinceLt: jw.last?.lt ?? 0n, walletSinceLt: state.last }, to, size);
      batch.member(key)!.versions.add(signed.txHash);
      seqnos.reserve(batch.seqno);
      this.expired.delete(queryId.toString());
      return signed;
    });
  }

  /** A first signing (or one whose seqno an earlier version of its batch took): join the open batch, else a new seqno. */
  private async firstBatch(request: PayoutRequest, key: string, mine: ReturnType<typeof transferMessage>, walletSeqno: number, book: PayoutBook | undefined): Promise<Batch> {
    // This payout signed before by this process, its row not committed (rolled back): the same batch while it may not have been sent.
    const held = this.batches.holding(key, walletSeqno);
    if (held && !held.sealed) return held;
    held?.remove(key); // sealed without it: no stored version of it can run there
    // Only a batch two seqnos ahead takes a new member: it cannot be sent for two blocks, time enough
    // for the member's row to commit and its version to be the one sent (else it is superseded: safe,
    // but signed again).
    const top = this.batches.top(walletSeqno);
    if (top && top.seqno >= walletSeqno + JOIN_AHEAD && !top.sealed && !top.full && (await top.committedBut(null, book))) {
      top.add({ message: mine, key, id: request.id, committed: false });
      return top;
    }
    const highestOpen = book ? await book.highestOpenSequence(this.walletKey) : null;
    const batch = this.batches.start(seqnoBook(this.walletRaw).next(walletSeqno, highestOpen));
    batch.add({ message: mine, key, id: request.id, committed: false });
    return batch;
  }

  /** Re-signing at the payout's own seqno: every transfer of the largest version known there (nested), all of them committed. */
  private async resignBatch(id: string, resign: { seqno: number; raw: string }, key: string, book: PayoutBook | undefined): Promise<Batch> {
    const batch = this.batches.at(resign.seqno) ?? this.batches.start(resign.seqno);
    for (const t of storedOrderOf(resign.raw)?.transfers ?? []) batch.add({ message: t.message, key: t.message.body.hash().toString('hex'), id: null, committed: true });
    if (!batch.member(key)) throw new TonPayoutResignUnprovenError(id, 1); // its own stored version lacks its transfer: not ours to sign
    if (!(await batch.committedBut(key, book))) throw new TonPayoutBatchBusyError(id, resign.seqno);
    return batch;
  }

  /**
   * Sends the largest stored version of the payout's batch once its seqno is the wallet's (the node
   * refuses any other; the status check asks again). Its seqno taken by a foreign message: needs an operator.
   */
  async broadcast(payout: SignedPayout): Promise<void> {
    const meta = metaOf(payout);
    const batch = this.batches.at(meta.nonce) ?? this.batches.start(meta.nonce);
    batch.stored(ownTransferKey(payout.raw, meta.queryId), { raw: payout.raw, size: storedOrderOf(payout.raw)?.transfers.length ?? 1, validUntil: meta.validUntil });
    // Read without the signing lock: a queued payout polls often and must not hold up the signers.
    const { seqno } = await this.walletState();
    if (seqno < meta.nonce) return; // not its turn yet
    if (seqno > meta.nonce) {
      if ((await this.seqnoFate(payout, meta)) === 'foreign') throw new TonPayoutSeqnoConsumedError(payout.txHash, meta.nonce, this.wallet.address.toString());
      return;
    }
    // Its turn: sealed under the lock, so no signer adds a member to a version that may be sent now.
    await seqnoBook(this.walletRaw).exclusive(async () => {
      batch.sealed = true;
      const { utime } = await this.walletState();
      try {
        await this.o.rpc.sendBoc(Buffer.from(batch.best(utime)?.raw ?? payout.raw, 'base64'));
      } catch (error) {
        // Refused because the seqno moved meanwhile (a version ran) or it expired: harmless, the status check decides.
        const now = await this.walletState();
        if (now.seqno !== meta.nonce || now.utime > meta.validUntil) return;
        throw new TonPayoutBroadcastError(payout.txHash, meta.nonce, error);
      }
    });
  }

  /**
   * The batch at the wallet's seqno goes out as soon as any status check sees that seqno committed,
   * not at its own members' next poll: the queue then moves about one seqno per block. Sends its
   * largest stored version (committed rows only); nothing when none is stored or it went out already.
   */
  private async sendNext(walletSeqno: number): Promise<void> {
    const batch = this.batches.at(walletSeqno);
    if (batch === undefined || batch.sealed) return;
    await seqnoBook(this.walletRaw).exclusive(async () => {
      const { seqno, utime } = await this.walletState();
      const version = seqno === batch.seqno && !batch.sealed ? batch.best(utime) : undefined;
      if (version === undefined) return;
      batch.sealed = true;
      // A refusal is harmless: the members' own broadcasts send it again.
      await this.o.rpc.sendBoc(Buffer.from(version.raw, 'base64')).catch(() => undefined);
    });
  }

  async status(payout: SignedPayout): Promise<PayoutStatus> {
    const meta = metaOf(payout);
    // The seqno is read after the chain time: not past ours then means no version ran before that
    // time, and past valid_until this one never can (TON's masterchain state is final).
    const { seqno, utime } = await this.walletState();
    await this.sendNext(seqno);
    if (seqno <= meta.nonce) {
      if (utime <= meta.validUntil) return { state: 'unknown' }; // not run yet and still valid: send it (again)
      this.expired.set(meta.queryId.toString(), { seqno: meta.nonce, raw: payout.raw });
      return { state: 'expired' };
    }
    const outcome = await this.outcomes.of(meta.queryId, meta.sinceLt);
    const head = (await this.o.rpc.state(this.o.jettonWallet)).seqno;
    if (outcome === 'refused' || outcome === 'bounced') return { state: 'reverted', blockHeight: head };
    if (outcome === 'arrived') {
      const first = this.seenAt.get(payout.txHash) ?? head;
      this.seenAt.set(payout.txHash, first);
      return { state: 'mined', blockHeight: first, confirmations: head - first + 1 };
    }
    if (outcome === 'sent') return { state: 'pending' };
    switch (await this.seqnoFate(payout, meta)) {
      case 'ours':
        return { state: 'pending' }; // it ran: its transfer is on its way to our jetton wallet
      case 'ours_unsent':
        return { state: 'reverted', blockHeight: head };
      case 'superseded':
        this.expired.set(meta.queryId.toString(), 'fresh');
        return { state: 'expired' };
      case 'foreign':
        return { state: 'unknown' }; // the broadcast it triggers raises payout_nonce_consumed
      default:
        return { state: 'pending' }; // the node does not show the seqno's transaction yet
    }
  }

  /**
   * What ran at the payout's seqno (the wallet is past it, no transfer of ours seen): its own transfer
   * (`ours`; `ours_unsent` when the wallet ran it but its action phase sent nothing), an earlier version
   * of its batch without it (`superseded`: a subset of its own message), another message (`foreign`),
   * or nothing the node shows yet (`unseen`).
   */
  private async seqnoFate(payout: SignedPayout, meta: PayoutMeta): Promise<'ours' | 'ours_unsent' | 'superseded' | 'foreign' | 'unseen'> {
    const consumer = await this.outcomes.consumerOf(meta.nonce, meta.walletSinceLt);
    if (consumer === null) return 'unseen';
    const own = storedOrderOf(payout.raw);
    const mine = ownTransferKey(payout.raw, meta.queryId);
    if (consumer.order.transfers.some((t) => t.bodyHash === mine)) return consumer.sent ? 'ours' : 'ours_unsent';
    const ownKeys = new Set(own?.transfers.map((t) => t.bodyHash) ?? []);
    return consumer.order.transfers.length > 0 && consumer.order.transfers.every((t) => ownKeys.has(t.bodyHash)) ? 'superseded' : 'foreign';
  }

  private signedPayout(cell: Cell, meta: PayoutMeta, to: Address, size: number): SignedPayout {
    return {
      // The external message's hash: the transaction's own hash is known only once it executed.
      txHash: cell.hash().toString('hex'),
      raw: cell.toBoc().toString('base64'),
      meta: {
        from: this.walletRaw,
        nonce: meta.nonce,
        validUntil: meta.validUntil,
        queryId: meta.queryId.toString(),
        sinceLt: meta.sinceLt.toString(),
        walletSinceLt: meta.walletSinceLt.toString(),
        to: to.toRawString(),
        transfers: size,
      },
      wallet: this.walletKey,
      sequence: meta.nonce,
    };
  }

  /** The service wallet's chain time, balance, last lt, and then its seqno (0 while not deployed), read after the time. */
  private async walletState(): Promise<{ seqno: number; utime: number; balance: bigint; active: boolean; last: bigint }> {
    const state = await this.o.rpc.state(this.wallet.address);
    const base = { utime: state.utime, balance: state.balance, active: state.active, last: state.last?.lt ?? 0n };
    if (!state.active) return { seqno: 0, ...base };
    const stack = await this.o.rpc.get(this.wallet.address, 'seqno');
    return { seqno: stack.readNumber(), ...base };
  }
}

/** The body hash of this payout's own transfer inside its stored message (found by its query_id). */
function ownTransferKey(raw: string, queryId: bigint): string | null {
  return storedOrderOf(raw)?.transfers.find((t) => t.queryId === queryId)?.bodyHash ?? null;
}

function metaOf(payout: SignedPayout): PayoutMeta {
  const m = payout.meta;
  return {
    nonce: Number(m.nonce),
    validUntil: Number(m.validUntil),
    queryId: BigInt(String(m.queryId)),
    sinceLt: BigInt(String(m.sinceLt ?? '0')),
    walletSinceLt: BigInt(String(m.walletSinceLt ?? '0')),
  };
}
