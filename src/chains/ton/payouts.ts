import { Address, type Transaction } from '@ton/core';
import { keyPairFromSeed, type KeyPair } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { ValidationError } from '../../domain/errors';
import type { NetworkCode } from '../../domain/networks';
import { toBaseUnits } from '../amount';
import type { PayoutRequest, PayoutStatus, SignedPayout } from '../types';
import type { TonRpc } from './client';
import { TonPayoutBroadcastError, TonPayoutGasShortError, TonPayoutResignUnprovenError } from './errors';
import { seqnoBook } from './seqnos';
import { hashOf } from './cursor';
import { bouncedTransferQueryId, succeeded, transferQueryId } from './jetton-messages';
import { PAYOUT_GAS_NEEDED, payoutMessage, payoutQueryId } from './payout-message';

/** valid_until of a message at seqno 0: wallet v4 ignores it there (the deploying message never expires). */
const NEVER = 0xffffffff;

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
}

type Outcome = 'sent' | 'refused' | 'bounced' | null;

/**
 * Payouts: jetton transfers ordered by the service wallet (wallet v4r2: seqno + valid_until), the
 * TON side of the payout contract (chains/types.ts). Invariants: one payout per seqno (a first
 * signature takes the next free seqno above the payout book's open ones, SeqnoBook); `expired` only
 * once valid_until passed on chain time and the wallet's seqno, read after that time, is not past the
 * payout's own (the message can then never run); a new attempt after that re-signs the SAME seqno
 * (and query_id): the wallet still waits for it, and any later payout already sits above it.
 * Success is our jetton wallet's transaction for the `transfer` with the payout's query_id, with no
 * bounce of its internal_transfer coming back; a refusal or a bounce is a revert (funds released).
 */
export class TonPayouts {
  private readonly keyPair: KeyPair;
  private readonly wallet: WalletContractV4;
  private readonly walletRaw: string;
  /** SignedPayout.wallet: the payout book's key for the service wallet. */
  private readonly walletKey: string;
  /** Masterchain seqno at which a payout's success was first seen (confirmations count from it). */
  private readonly seenAt = new Map<string, number>();
  /**
   * query_id -> seqno of a payout payoutStatus just reported `expired`. The host asks for the new
   * attempt under the same row lock right after (chains/types.ts), so the seqno to reuse is known here;
   * the book cannot give it (it leaves the payout being signed out, and its highest open seqno may
   * belong to payouts queued behind this one).
   */
  private readonly expiredSeqno = new Map<string, number>();

  constructor(private readonly o: TonPayoutsOptions) {
    this.keyPair = keyPairFromSeed(o.serviceSeed);
    this.wallet = WalletContractV4.create({ workchain: 0, publicKey: this.keyPair.publicKey });
    this.walletRaw = this.wallet.address.toRawString();
    this.walletKey = `ton:${this.walletRaw}`;
  }

  async sign(request: PayoutRequest): Promise<SignedPayout> {
    let to: Address;
    try {
      to = Address.parse(request.to);
    } catch {
      throw new ValidationError('invalid_address', `not a TON address: ${request.to}`, 'address');
    }
    const amount = toBaseUnits(request.amount, this.o.decimals);
    const queryId = payoutQueryId(request.id);
    const attempt = request.attempt ?? 0;
    const seqnos = seqnoBook(this.walletRaw);
    return seqnos.exclusive(async () => {
      const jw = await this.o.rpc.state(this.o.jettonWallet);
      const state = await this.walletState();
      let seqno: number;
      if (attempt > 0) {
        const expired = this.expiredSeqno.get(queryId.toString());
        if (expired === undefined || state.seqno > expired) throw new TonPayoutResignUnprovenError(request.id, attempt);
        seqno = expired;
      } else {
        seqno = seqnos.next(state.seqno, request.book ? await request.book.highestOpenSequence(this.walletKey) : null);
      }
      if (state.balance < PAYOUT_GAS_NEEDED) throw new TonPayoutGasShortError(this.wallet.address.toString(), state.balance.toString(), PAYOUT_GAS_NEEDED.toString());
      const validUntil = seqno === 0 ? NEVER : state.utime + this.o.ttlSeconds;
      const signed = this.build({ nonce: seqno, validUntil, queryId, sinceLt: jw.last?.lt ?? 0n }, to, amount, !state.active, request.comment);
      seqnos.reserve(seqno);
      this.expiredSeqno.delete(queryId.toString());
      return signed;
    });
  }

  /** Sends the stored message. Refused while the seqno moved on or the message expired: harmless, the status check decides. */
  async broadcast(payout: SignedPayout): Promise<void> {
    try {
      await this.o.rpc.sendBoc(Buffer.from(payout.raw, 'base64'));
    } catch (error) {
      const meta = metaOf(payout);
      const { seqno, utime } = await this.walletState();
      if (seqno > meta.nonce || utime > meta.validUntil) return;
      throw new TonPayoutBroadcastError(payout.txHash, meta.nonce, error);
    }
  }

  async status(payout: SignedPayout): Promise<PayoutStatus> {
    const meta = metaOf(payout);
    const outcome = await this.outcome(meta);
    const head = (await this.o.rpc.state(this.o.jettonWallet)).seqno;
    if (outcome === 'refused' || outcome === 'bounced') return { state: 'reverted', blockHeight: head };
    if (outcome === 'sent') {
      const first = this.seenAt.get(payout.txHash) ?? head;
      this.seenAt.set(payout.txHash, first);
      return { state: 'mined', blockHeight: first, confirmations: head - first + 1 };
    }
    // The seqno is read after the chain time: not past ours then means the message did not run
    // before that time, and past valid_until it never can (TON's masterchain state is final).
    const { seqno, utime } = await this.walletState();
    if (seqno > meta.nonce) return { state: 'pending' }; // it ran: its transfer is on its way to our jetton wallet
    if (utime > meta.validUntil) {
      this.expiredSeqno.set(meta.queryId.toString(), meta.nonce);
      return { state: 'expired' };
    }
    return { state: 'unknown' }; // not run yet and still valid: send it again
  }

  private build(meta: PayoutMeta, to: Address, amount: bigint, deploy: boolean, comment?: string): SignedPayout {
    const cell = payoutMessage({
      wallet: this.wallet,
      keyPair: this.keyPair,
      jettonWallet: this.o.jettonWallet,
      seqno: meta.nonce,
      validUntil: meta.validUntil,
      queryId: meta.queryId,
      to,
      amount,
      deploy,
      ...(comment !== undefined ? { comment } : {}),
    });
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
        to: to.toRawString(),
        amount: amount.toString(),
      },
      wallet: this.walletKey,
      sequence: meta.nonce,
    };
  }

  /** The service wallet's chain time, balance, and then its seqno (0 while not deployed), read after the time. */
  private async walletState(): Promise<{ seqno: number; utime: number; balance: bigint; active: boolean }> {
    const state = await this.o.rpc.state(this.wallet.address);
    const base = { utime: state.utime, balance: state.balance, active: state.active };
    if (!state.active) return { seqno: 0, ...base };
    const stack = await this.o.rpc.get(this.wallet.address, 'seqno');
    return { seqno: stack.readNumber(), ...base };
  }

  /** Our jetton wallet's history above `sinceLt`, searched for this payout's transfer and a bounce of it. */
  private async outcome(meta: PayoutMeta): Promise<Outcome> {
    const jw = await this.o.rpc.state(this.o.jettonWallet);
    let next = jw.last;
    let result: Outcome = null;
    while (next !== null && next.lt > meta.sinceLt) {
      const page: Transaction[] = await this.o.rpc.transactions(this.o.jettonWallet, next, this.o.pageSize, meta.sinceLt);
      if (page.length === 0) break;
      for (const tx of page) {
        if (tx.lt <= meta.sinceLt) return result;
        if (bouncedTransferQueryId(tx) === meta.queryId) return 'bounced';
        if (transferQueryId(tx) === meta.queryId) result = succeeded(tx) ? 'sent' : 'refused';
      }
      const tail = page[page.length - 1]!;
      next = tail.prevTransactionLt === 0n ? null : { lt: tail.prevTransactionLt, hash: hashOf(tail.prevTransactionHash) };
    }
    return result;
  }
}

function metaOf(payout: SignedPayout): PayoutMeta {
  const m = payout.meta;
  return { nonce: Number(m.nonce), validUntil: Number(m.validUntil), queryId: BigInt(String(m.queryId)), sinceLt: BigInt(String(m.sinceLt ?? '0')) };
}
