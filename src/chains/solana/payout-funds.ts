import { ACCOUNT_SIZE, getAssociatedTokenAddressSync, unpackAccount } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import { fromBaseUnits, toBaseUnits } from '../amount';
import type { PayoutFunds, PayoutFundsRequest, PayoutShortfall } from '../types';
import type { SolanaRpc } from './rpc';

/** The compute units a payout asks for and the fee of its one signature (as payouts.ts signs it). */
const COMPUTE_UNITS = 60_000n;
const SIGNATURE_FEE_LAMPORTS = 5000n;
const SOL_DECIMALS = 9;

export interface SolanaFundsDeps {
  readonly rpc: SolanaRpc;
  readonly mint: PublicKey;
  readonly decimals: number;
  readonly hot: PublicKey;
  /** SOLANA_MAX_PRIORITY_FEE (micro-lamports per compute unit): the most a payout's priority fee can cost. */
  readonly maxPriorityFee: number;
}

/**
 * ChainAdapter.payoutFunds on SOLANA: the hot wallet's token account against this payout plus those
 * in flight, and its SOL against their fees at the priority-fee cap (each) plus the payee's token
 * account rent when it does not exist yet. A node that does not answer throws (the host retries).
 */
export async function solanaPayoutFunds(deps: SolanaFundsDeps, request: PayoutFundsRequest): Promise<PayoutFunds> {
  const { rpc, mint, decimals, hot } = deps;
  const hotAta = getAssociatedTokenAddressSync(mint, hot);
  const neededTokens = toBaseUnits(request.amount, decimals) + toBaseUnits(request.inFlight.amount, decimals);
  const hotAccount = await rpc.call('getAccountInfo', (c) => c.getAccountInfo(hotAta));
  const tokens = hotAccount === null ? 0n : unpackAccount(hotAta, hotAccount).amount;
  const payeeAta = payeeTokenAccount(mint, request.to);
  const payeeAccount = payeeAta === null ? null : await rpc.call('getAccountInfo', (c) => c.getAccountInfo(payeeAta));
  const rent = payeeAccount === null ? BigInt(await rpc.call('getMinimumBalanceForRentExemption', (c) => c.getMinimumBalanceForRentExemption(ACCOUNT_SIZE))) : 0n;
  const perPayout = SIGNATURE_FEE_LAMPORTS + (COMPUTE_UNITS * BigInt(deps.maxPriorityFee) + 999_999n) / 1_000_000n;
  const neededLamports = perPayout * BigInt(request.inFlight.count + 1) + rent;
  const lamports = BigInt(await rpc.call('getBalance', (c) => c.getBalance(hot)));
  const shortfalls: PayoutShortfall[] = [];
  if (tokens < neededTokens) shortfalls.push({ kind: 'token', asset: 'USDT', balance: fromBaseUnits(tokens, decimals), needed: fromBaseUnits(neededTokens, decimals) });
  if (lamports < neededLamports) shortfalls.push({ kind: 'gas', asset: 'SOL', balance: fromBaseUnits(lamports, SOL_DECIMALS), needed: fromBaseUnits(neededLamports, SOL_DECIMALS) });
  return { wallet: hot.toBase58(), shortfalls };
}

/** The payee's associated token account; null for an address that cannot own one (the signing refuses it). */
function payeeTokenAccount(mint: PublicKey, to: string): PublicKey | null {
  try {
    return getAssociatedTokenAddressSync(mint, new PublicKey(to));
  } catch {
    return null;
  }
}
