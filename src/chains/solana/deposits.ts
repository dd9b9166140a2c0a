import { TOKEN_PROGRAM_ID } from '@solana/spl-token';
import type { NetworkCode } from '../../domain/networks';
import { fromBaseUnits } from '../amount';
import type { UnstampedTransfer, WatchedAddresses } from '../types';
import type { MintTransaction, SlotBlock, TokenBalanceRow } from './block-reader';

const CLASSIC_TOKEN_PROGRAM = TOKEN_PROGRAM_ID.toBase58();

export interface DepositFilter {
  readonly network: NetworkCode;
  /** Exactly the configured mint (checked at init to belong to the classic Token program). */
  readonly mint: string;
  readonly decimals: number;
  readonly watched: WatchedAddresses;
}

/**
 * The USDT payments to watched owners in one finalized block (read by readSlotBlock: only the
 * successful transactions with a post balance of the mint; transactionDetails `accounts`). A
 * payment is, per (signature, account index): a token account whose post balance shows a watched
 * `owner`, exactly the configured `mint` and the classic Token `programId`, in a transaction with
 * `meta.err === null`, credited post − pre (pre absent = 0: the account was created in that
 * transaction), and only when pre names the same owner, mint and program (an authority change, a
 * closed and recreated account, is no payment). A Token-2022 look-alike has another program and
 * mint; another mint never matches. Work is per token balance in the block; a watched-set lookup
 * each, so the cost does not grow with the number of watched addresses.
 */
export function depositsInBlock(slot: number, block: SlotBlock, filter: DepositFilter): UnstampedTransfer[] {
  const out: UnstampedTransfer[] = [];
  for (const tx of block.mintTransactions) {
    const pre = new Map<number, TokenBalanceRow>(tx.pre.map((b) => [b.accountIndex, b]));
    for (const post of tx.post) {
      if (post.mint !== filter.mint || post.programId !== CLASSIC_TOKEN_PROGRAM || !post.owner || !filter.watched.has(post.owner)) continue;
      const before = pre.get(post.accountIndex);
      if (before && (before.owner !== post.owner || before.mint !== post.mint || before.programId !== post.programId)) continue;
      const increase = BigInt(post.amount) - BigInt(before?.amount ?? '0');
      if (increase <= 0n) continue;
      out.push({
        kind: 'transfer',
        network: filter.network,
        txHash: tx.signature,
        eventIndex: post.accountIndex,
        blockHeight: slot,
        blockHash: block.blockhash,
        from: payer(tx, pre, filter.mint),
        to: post.owner,
        memo: null,
        amount: fromBaseUnits(increase, filter.decimals),
      });
    }
  }
  return out;
}

/** Who paid: the owner of a token account of the mint whose balance went down, else the fee payer. */
function payer(tx: MintTransaction, pre: Map<number, TokenBalanceRow>, mint: string): string {
  for (const [index, before] of pre) {
    if (before.mint !== mint || !before.owner) continue;
    const after = tx.post.find((b) => b.accountIndex === index);
    if (BigInt(after?.amount ?? '0') < BigInt(before.amount)) return before.owner;
  }
  return tx.feePayer;
}
