import type { SignatureStatus } from '@solana/web3.js';
import type { PayoutStatus, SignedPayout } from '../types';
import type { SolanaRpc } from './rpc';

/**
 * Block heights the finalized chain must be past a payout's lastValidBlockHeight before its absence
 * can prove it expired (~13 s on mainnet): a node's status cache and rooted history trail its own
 * root by a few slots, and two nodes of one provider disagree on the finalized height by as much.
 */
export const EXPIRY_MARGIN_BLOCKS = 32;

/** The host's meta key listing the signatures of this payout's earlier, expired versions (comma-separated). */
const EXPIRED_VERSIONS_KEY = 'expired_tx_hashes';

/** getSignatureStatuses takes at most 256 signatures a call. */
const MAX_SIGNATURES = 256;

/** Where a finalized signed transaction landed, or null when no node answering knows it (yet). */
export interface LandedSignature {
  readonly slot: number;
  readonly reverted: boolean;
}

/**
 * Where a SOLANA payout stands. A provider balances calls over nodes that are not in sync, so an
 * answer is trusted only for what it proves:
 * - found (any version of the payout, the newest or one declared expired before): `pending` until
 *   finalized, then `mined` with that version's signature; `reverted` only for the newest (an
 *   earlier version that failed leaves the newest to decide);
 * - not found is `expired` only when absence is proven: one getEpochInfo answer says the finalized
 *   chain is at block height H >= lastValidBlockHeight + EXPIRY_MARGIN_BLOCKS at slot S (one node,
 *   so H and S agree), and the getSignatureStatuses answer (with history) comes from a node whose
 *   context.slot is at least S. Such a node has processed every block that could hold the
 *   transaction (their heights are at most lastValidBlockHeight < H), so its "not found" is real.
 *   An answer from a node behind S proves nothing: `unknown` (sent again; an expired transaction
 *   is dropped by the leader), and the next check asks again.
 */
export async function solanaPayoutStatus(rpc: SolanaRpc, payout: SignedPayout): Promise<PayoutStatus> {
  // Read first: a later finalized tip only makes S larger, so the proof can never be of the future.
  const tip = await rpc.call('getEpochInfo', (c) => c.getEpochInfo('finalized'));
  const earlier = expiredVersions(payout).slice(0, MAX_SIGNATURES - 1);
  const answer = await rpc.call('getSignatureStatuses', (c) => c.getSignatureStatuses([payout.txHash, ...earlier], { searchTransactionHistory: true }));
  const versions = [payout.txHash, ...earlier];
  const found = answer.value
    .map((s, i) => ({ signature: versions[i]!, status: s ?? null }))
    .filter((v): v is { signature: string; status: SignatureStatus } => v.status !== null)
    // An earlier version that failed on chain moved nothing and says nothing about the newest one,
    // which may still land: it never decides the payout (the expired payout watch reports it).
    .filter((v) => v.signature === payout.txHash || v.status.confirmationStatus !== 'finalized' || v.status.err === null);
  const final = found.find((v) => v.status.confirmationStatus === 'finalized');
  if (final) {
    const txHash = final.signature !== payout.txHash ? { txHash: final.signature } : {};
    if (final.status.err !== null) return { state: 'reverted', blockHeight: final.status.slot, ...txHash };
    const finalSlot = await rpc.call('getSlot', (c) => c.getSlot('finalized'));
    return { state: 'mined', blockHeight: final.status.slot, confirmations: Math.max(1, finalSlot - final.status.slot + 1), ...txHash };
  }
  if (found.length > 0) return { state: 'pending' };
  // An answer without blockHeight (very old nodes) proves nothing.
  const pastExpiry = tip.blockHeight !== undefined && tip.blockHeight >= Number(payout.meta.lastValidBlockHeight) + EXPIRY_MARGIN_BLOCKS;
  return pastExpiry && answer.context.slot >= tip.absoluteSlot ? { state: 'expired' } : { state: 'unknown' };
}

/** A signature's finalized landing (history searched), or null while no answering node has it finalized. */
export async function solanaSignatureLanded(rpc: SolanaRpc, signature: string): Promise<LandedSignature | null> {
  const answer = await rpc.call('getSignatureStatuses', (c) => c.getSignatureStatuses([signature], { searchTransactionHistory: true }));
  const s = answer.value[0] ?? null;
  if (s === null || s.confirmationStatus !== 'finalized') return null;
  return { slot: s.slot, reverted: s.err !== null };
}

/** The signatures of the payout's expired versions, which the host lists in its meta after each re-signing. */
function expiredVersions(payout: SignedPayout): string[] {
  const listed = payout.meta[EXPIRED_VERSIONS_KEY];
  if (typeof listed !== 'string') return [];
  return listed.split(',').filter((s) => s.length > 0 && s !== payout.txHash);
}
