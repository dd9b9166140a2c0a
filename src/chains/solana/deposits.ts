import { TOKEN_PROGRAM_ID } from '@solana/spl-token';
import type { AccountsModeBlockResponse, TokenBalance } from '@solana/web3.js';
import type { NetworkCode } from '../../domain/networks';
import { fromBaseUnits } from '../amount';
import type { UnstampedTransfer, WatchedAddresses } from '../types';

const CLASSIC_TOKEN_PROGRAM = TOKEN_PROGRAM_ID.toBase58();

export interface DepositFilter {
  readonly network: NetworkCode;
  /** Exactly the configured mint (checked at init to belong to the classic Token program). */
  readonly mint: string;
  readonly decimals: number;
  readonly watched: WatchedAddresses;
}

/**
 * The USDT payments to watched owners in one finalized block (transactionDetails `accounts`). A
 * payment is, per (signature, account index): a token account whose post balance shows a watched
 * `owner`, exactly the configured `mint` and the classic Token `programId`, in a transaction with
 * `meta.err === null`, credited post − pre (pre absent = 0: the account was created in that
 * transaction), and only when pre names the same owner, mint and program (an authority change, a
 * closed and recreated account, is no payment). A Token-2022 look-alike has another program and
 * mint; another mint never matches. Work is per token balance in the block; a watched-set lookup
 * each, so the cost does not grow with the number of watched addresses.
 */
export function depositsInBlock(slot: number, block: AccountsModeBlockResponse, filter: DepositFilter): UnstampedTransfer[] {
  const out: UnstampedTransfer[] = [];
  for (const tx of block.transactions) {
    const meta = tx.meta;
    if (!meta || meta.err !== null || !meta.postTokenBalances) continue;
    const pre = new Map<number, TokenBalance>((meta.preTokenBalances ?? []).map((b) => [b.accountIndex, b]));
    for (const post of meta.postTokenBalances) {
      if (post.mint !== filter.mint || post.programId !== CLASSIC_TOKEN_PROGRAM || !post.owner || !filter.watched.has(post.owner)) continue;
      const before = pre.get(post.accountIndex);
      if (before && (before.owner !== post.owner || before.mint !== post.mint || before.programId !== post.programId)) continue;
      const increase = BigInt(post.uiTokenAmount.amount) - BigInt(before?.uiTokenAmount.amount ?? '0');
      if (increase <= 0n) continue;
      out.push({
        kind: 'transfer',
        network: filter.network,
        txHash: tx.transaction.signatures[0]!,
        eventIndex: post.accountIndex,
        blockHeight: slot,
        blockHash: block.blockhash,
        from: payer(tx, pre, meta.postTokenBalances, filter.mint),
        to: post.owner,
        memo: null,
        amount: fromBaseUnits(increase, filter.decimals),
      });
    }
  }
  return out;
}

/** Who paid: the owner of a token account of the mint whose balance went down, else the fee payer. */
function payer(tx: AccountsModeBlockResponse['transactions'][number], pre: Map<number, TokenBalance>, post: readonly TokenBalance[], mint: string): string {
  for (const [index, before] of pre) {
    if (before.mint !== mint || !before.owner) continue;
    const after = post.find((b) => b.accountIndex === index);
    if (BigInt(after?.uiTokenAmount.amount ?? '0') < BigInt(before.uiTokenAmount.amount)) return before.owner;
  }
  return tx.transaction.accountKeys[0]?.pubkey.toBase58() ?? '';
}
