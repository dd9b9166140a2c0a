import { ACCOUNT_SIZE, createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, getAssociatedTokenAddressSync, unpackAccount } from '@solana/spl-token';
import { ComputeBudgetProgram, type Keypair, LAMPORTS_PER_SOL, PublicKey, Transaction } from '@solana/web3.js';
import { base58 } from '@scure/base';
import { ValidationError } from '../../domain/errors';
import { fromBaseUnits, toBaseUnits } from '../amount';
import type { PayoutRequest, PayoutStatus, SignedPayout } from '../types';
import { SolanaBroadcastError, SolanaHotWalletUnderfundedError, SolanaInsufficientTokenError } from './errors';
import { offCurveRefusal, tokenAccountRefusal } from './payee';
import { solanaPayoutStatus, solanaSignatureLanded, type LandedSignature } from './payout-status';
import { priorityFee, type PriorityFeePolicy } from './priority-fee';
import { SolanaResender } from './resender';
import type { SolanaRpc } from './rpc';

/** Enough for the compute budget, an idempotent ATA creation (creating: ~22k CU) and transferChecked (~6k). */
export const PAYOUT_COMPUTE_UNITS = 60_000;
const SIGNATURE_FEE_LAMPORTS = 5000;

export interface SolanaPayoutDeps {
  readonly rpc: SolanaRpc;
  readonly mint: PublicKey;
  readonly decimals: number;
  readonly hot: Keypair;
  /** Floor and ceiling of the priority fee in micro-lamports per compute unit. */
  readonly priorityFee: PriorityFeePolicy;
  /** Re-send period of a sent payout (RESEND_INTERVAL_MS). */
  readonly resendIntervalMs: number;
}

/**
 * SPL payouts from the hot wallet: compute budget (unit limit, price from recent prioritization
 * fees), createAssociatedTokenAccountIdempotent for the payee (the hot wallet pays its rent when it
 * is missing), transferChecked (mint, decimals). A payout's transaction lives until its blockhash
 * expires: meta.lastValidBlockHeight; after that status() says `expired` and the host signs the
 * next attempt (docs/chains.md, The family contract). meta: { payoutId, to, amount, from,
 * blockhash, lastValidBlockHeight, computeUnitPrice, attempt }; the host adds the hashes of the
 * expired versions (expired_tx_hashes).
 */
export class SolanaPayouts {
  private readonly resender: SolanaResender;

  constructor(private readonly deps: SolanaPayoutDeps) {
    this.resender = new SolanaResender(deps.rpc, deps.resendIntervalMs);
  }

  /** Sends made again by the resender since start. */
  get resent(): number {
    return this.resender.resent;
  }

  close(): void {
    this.resender.close();
  }

  /**
   * Signs one version of the payout with a fresh `confirmed` blockhash: a finalized one is already
   * ~32 slots old, a fifth of the 150 blocks a transaction may land in. A confirmed block was voted
   * by a super-majority and is practically never dropped; were it dropped, a transaction naming its
   * blockhash could never land, and its lastValidBlockHeight still bounds it. The host asks for a new
   * attempt only after status() said `expired` for the stored one (and checked it again under the
   * withdrawal's lock), so at most one version can ever execute; the attempt is in `meta` only for
   * the operator (a new blockhash already makes a new transaction).
   */
  sign(request: PayoutRequest): Promise<SignedPayout> {
    return this.signVersion(request.id, request.to, request.amount, request.attempt ?? 0);
  }

  /**
   * Sends the stored transaction as it is: skipPreflight, maxRetries 0, then the resender sends it
   * again every RESEND_INTERVAL_MS until it lands or expires (resender.ts). An expired one is sent
   * too (the RPC accepts and drops it): status() decides.
   */
  async broadcast(payout: SignedPayout): Promise<void> {
    const wire = Buffer.from(payout.raw, 'base64');
    try {
      await this.deps.rpc.call('sendTransaction', (c) => c.sendRawTransaction(wire, { skipPreflight: true, maxRetries: 0 }));
    } catch (error) {
      throw new SolanaBroadcastError(payout.txHash, error);
    }
    this.resender.track(payout.txHash, wire, Number(payout.meta.lastValidBlockHeight));
  }

  /** Where the payout stands, proving absence before `expired` (payout-status.ts). */
  async status(payout: SignedPayout): Promise<PayoutStatus> {
    const status = await solanaPayoutStatus(this.deps.rpc, payout);
    if (status.state !== 'unknown' && status.state !== 'pending') this.resender.forget(payout.txHash);
    return status;
  }

  /** A signature declared expired that landed after all (the host watches them for a day). */
  landed(signature: string): Promise<LandedSignature | null> {
    return solanaSignatureLanded(this.deps.rpc, signature);
  }

  /** The payee's account on the chain, refused when a token program owns it (payee.ts). */
  async payeeAccountRefusal(address: string): Promise<{ code: string; message: string } | null> {
    const account = await this.deps.rpc.call('getAccountInfo', (c) => c.getAccountInfo(new PublicKey(address)));
    const refusal = tokenAccountRefusal(address, account);
    return refusal ? { code: refusal.code, message: refusal.message } : null;
  }

  private async signVersion(payoutId: string, to: string, amount: string, attempt: number): Promise<SignedPayout> {
    const { rpc, mint, decimals, hot } = this.deps;
    const refusal = offCurveRefusal(to);
    if (refusal) throw new ValidationError(refusal.code, refusal.message, 'to');
    const onChain = await this.payeeAccountRefusal(to);
    if (onChain) throw new ValidationError(onChain.code, onChain.message, 'to');
    const units = toBaseUnits(amount, decimals);
    if (units <= 0n) throw new ValidationError('invalid_amount', 'payout amount must be positive', 'amount');
    const payee = new PublicKey(to);
    const hotAta = getAssociatedTokenAddressSync(mint, hot.publicKey);
    const payeeAta = getAssociatedTokenAddressSync(mint, payee);
    const wallet = hot.publicKey.toBase58();
    const hotAccount = await rpc.call('getAccountInfo', (c) => c.getAccountInfo(hotAta));
    const tokens = hotAccount === null ? 0n : unpackAccount(hotAta, hotAccount).amount;
    if (tokens < units) throw new SolanaInsufficientTokenError({ wallet, balance: fromBaseUnits(tokens, decimals), needed: fromBaseUnits(units, decimals) });
    const payeeAccount = await rpc.call('getAccountInfo', (c) => c.getAccountInfo(payeeAta));
    const rent = payeeAccount === null ? await rpc.call('getMinimumBalanceForRentExemption', (c) => c.getMinimumBalanceForRentExemption(ACCOUNT_SIZE)) : 0;
    const recent = await rpc.call('getRecentPrioritizationFees', (c) => c.getRecentPrioritizationFees({ lockedWritableAccounts: [hotAta, payeeAta] }));
    const price = priorityFee(recent, this.deps.priorityFee);
    const needed = BigInt(SIGNATURE_FEE_LAMPORTS + rent) + (BigInt(PAYOUT_COMPUTE_UNITS) * price + 999_999n) / 1_000_000n;
    const lamports = BigInt(await rpc.call('getBalance', (c) => c.getBalance(hot.publicKey)));
    if (lamports < needed) throw new SolanaHotWalletUnderfundedError({ wallet, balance: sol(lamports), needed: sol(needed) });
    const { blockhash, lastValidBlockHeight } = await rpc.call('getLatestBlockhash', (c) => c.getLatestBlockhash('confirmed'));
    const tx = new Transaction({ feePayer: hot.publicKey, blockhash, lastValidBlockHeight }).add(
      ComputeBudgetProgram.setComputeUnitLimit({ units: PAYOUT_COMPUTE_UNITS }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: price }),
      createAssociatedTokenAccountIdempotentInstruction(hot.publicKey, payeeAta, payee, mint),
      createTransferCheckedInstruction(hotAta, mint, payeeAta, hot.publicKey, units, decimals),
    );
    tx.sign(hot);
    const signature = base58.encode(tx.signature!);
    return {
      txHash: signature,
      raw: tx.serialize().toString('base64'),
      meta: { payoutId, to, amount, from: wallet, blockhash, lastValidBlockHeight, computeUnitPrice: price.toString(), attempt },
    };
  }
}

function sol(lamports: bigint): string {
  return fromBaseUnits(lamports, Math.log10(LAMPORTS_PER_SOL));
}
