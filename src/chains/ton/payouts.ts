import { Address, type Transaction } from '@ton/core';
import { keyPairFromSeed, type KeyPair } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { ValidationError } from '../../domain/errors';
import type { NetworkCode } from '../../domain/networks';
import { toBaseUnits } from '../amount';
import { walletNonces } from '../evm/nonces';
import type { PayoutRequest, PayoutStatus, SignedPayout } from '../types';
import type { TonRpc } from './client';
import { TonPayoutBroadcastError, TonPayoutGasShortError, TonPayoutNotExpiredError } from './errors';
import { hashOf } from './cursor';
import { bouncedTransferQueryId, succeeded, transferQueryId } from './jetton-messages';
import { PAYOUT_GAS_NEEDED, payoutMessage, payoutQueryId } from './payout-message';

/** signed_meta's chainId for TON wallets (the mainnet global id): the host's nonce book keys on it. */
export const TON_WALLET_CHAIN_ID = -239;

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
  /** Our jetton wallet's last lt when first signed: its outcome lies above. */
  readonly sinceLt: bigint;
}

type Outcome = 'sent' | 'refused' | 'bounced' | null;

/**
 * Payouts: jetton transfers ordered by the service wallet (wallet v4r2: seqno + valid_until).
 * Invariants: one payout per seqno (assigned under a per-wallet lock above the highest stored open
 * payout's seqno, like EVM nonces); a payout is signed anew only once its valid_until has passed on
 * chain time and the wallet's seqno has not passed its own (then the old message can never execute);
 * success is our jetton wallet's transaction for the `transfer` with the payout's query_id, with no
 * bounce of its internal_transfer coming back; a refusal or a bounce is a revert (funds released).
 */
export class TonPayouts {
  private readonly keyPair: KeyPair;
  private readonly wallet: WalletContractV4;
  private readonly walletRaw: string;
  /** Masterchain seqno at which a payout's success was first seen (confirmations count from it). */
  private readonly seenAt = new Map<string, number>();

  constructor(private readonly o: TonPayoutsOptions) {
    this.keyPair = keyPairFromSeed(o.serviceSeed);
    this.wallet = WalletContractV4.create({ workchain: 0, publicKey: this.keyPair.publicKey });
    this.walletRaw = this.wallet.address.toRawString();
  }

  async sign(request: PayoutRequest): Promise<SignedPayout> {
    let to: Address;
    try {
      to = Address.parse(request.to);
    } catch {
      throw new ValidationError('invalid_address', `not a TON address: ${request.to}`, 'address');
    }
    const amount = toBaseUnits(request.amount, this.o.decimals);
    const stored = request.storedNonces;
    const book = walletNonces(TON_WALLET_CHAIN_ID, this.walletRaw);
    const jw = await this.o.rpc.state(this.o.jettonWallet);
    return book.assign(
      async () => (await this.walletState()).seqno,
      async (seqno) => {
        const state = await this.o.rpc.state(this.wallet.address);
        if (state.balance < PAYOUT_GAS_NEEDED) throw new TonPayoutGasShortError(this.wallet.address.toString(), state.balance.toString(), PAYOUT_GAS_NEEDED.toString());
        return this.build({ nonce: seqno, validUntil: state.utime + this.o.ttlSeconds, queryId: payoutQueryId(request.id), sinceLt: jw.last?.lt ?? 0n }, to, amount, !state.active);
      },
      stored ? () => stored({ chainId: TON_WALLET_CHAIN_ID, from: this.walletRaw }) : undefined,
    );
  }

  /** Sends the stored message. Refused while the seqno moved on or the message expired: harmless, the status check decides. */
  async broadcast(payout: SignedPayout): Promise<void> {
    try {
      await this.o.rpc.sendBoc(Buffer.from(payout.raw, 'base64'));
      walletNonces(TON_WALLET_CHAIN_ID, this.walletRaw).sent(Number(payout.meta.nonce));
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
    const { seqno, utime } = await this.walletState();
    // Spent (in flight to our jetton wallet), or expired before its seqno came (never ran, never
    // will): pending, and the re-sign (bump) decides. Otherwise not seen yet: send it again.
    if (seqno > meta.nonce || utime > meta.validUntil) return { state: 'pending' };
    return { state: 'unknown' };
  }

  /** Signs the same payout anew (same seqno and query_id, later valid_until), only when the old one can never execute. */
  async resign(payout: SignedPayout): Promise<SignedPayout> {
    const meta = metaOf(payout);
    const before = await this.o.rpc.state(this.wallet.address);
    if (before.utime <= meta.validUntil) throw new TonPayoutNotExpiredError(payout.txHash, `valid_until ${meta.validUntil} not passed (chain time ${before.utime})`);
    // Read after the time: a seqno not past ours now means the expired message never ran (it needed
    // seqno == ours before valid_until). Below ours, an earlier payout is still ahead in the queue.
    const { seqno } = await this.walletState();
    if (seqno > meta.nonce) throw new TonPayoutNotExpiredError(payout.txHash, `the wallet's seqno moved past ${meta.nonce} (now ${seqno})`);
    const to = Address.parseRaw(String(payout.meta.to));
    return this.build({ ...meta, validUntil: before.utime + this.o.ttlSeconds }, to, BigInt(String(payout.meta.amount)), !before.active);
  }

  private build(meta: PayoutMeta, to: Address, amount: bigint, deploy: boolean): SignedPayout {
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
    });
    return {
      // The external message's hash: the transaction's own hash is known only once it executed.
      txHash: cell.hash().toString('hex'),
      raw: cell.toBoc().toString('base64'),
      meta: {
        chainId: TON_WALLET_CHAIN_ID,
        from: this.walletRaw,
        nonce: meta.nonce,
        validUntil: meta.validUntil,
        queryId: meta.queryId.toString(),
        sinceLt: meta.sinceLt.toString(),
        to: to.toRawString(),
        amount: amount.toString(),
      },
    };
  }

  /** The service wallet's seqno (0 while not deployed) and chain time, read in that order after the time. */
  private async walletState(): Promise<{ seqno: number; utime: number }> {
    const state = await this.o.rpc.state(this.wallet.address);
    if (!state.active) return { seqno: 0, utime: state.utime };
    const stack = await this.o.rpc.get(this.wallet.address, 'seqno');
    return { seqno: stack.readNumber(), utime: state.utime };
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
