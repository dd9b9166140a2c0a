import { z } from 'zod';
import { MalformedBlockError } from './errors';

/** A token balance row of a transaction's meta (agave UiTransactionTokenBalance), the fields deposits read. */
export interface TokenBalanceRow {
  readonly accountIndex: number;
  readonly mint: string;
  /** Absent in answers of very old nodes: such a row never matches a watched owner. */
  readonly owner: string | undefined;
  readonly programId: string | undefined;
  /** Base units, a decimal integer string. */
  readonly amount: string;
}

/** A successful transaction (meta.err === null) with a post token balance of the watched mint: all that deposits need of it. */
export interface MintTransaction {
  readonly signature: string;
  /** The first account key (the fee payer): the payer when no balance of the mint went down. */
  readonly feePayer: string;
  /** Every token balance row of the transaction, any mint (an account index must be compared as it was). */
  readonly pre: readonly TokenBalanceRow[];
  readonly post: readonly TokenBalanceRow[];
}

/** What the watch keeps of a finalized block: its place in the chain and the transactions that may pay us. */
export interface SlotBlock {
  readonly blockhash: string;
  readonly previousBlockhash: string;
  readonly parentSlot: number;
  readonly blockTime: number | null;
  readonly transactionCount: number;
  readonly mintTransactions: readonly MintTransaction[];
}

const HEADER = z.object({
  blockhash: z.string().min(32),
  previousBlockhash: z.string().min(32),
  parentSlot: z.number().int().nonnegative(),
  blockTime: z.number().int().nullable(),
  transactions: z.array(z.unknown()),
});

const BALANCE = z.object({
  accountIndex: z.number().int().nonnegative(),
  mint: z.string(),
  owner: z.string().optional(),
  programId: z.string().optional(),
  uiTokenAmount: z.object({ amount: z.string().regex(/^\d+$/) }),
});

const CANDIDATE = z.object({
  transaction: z.object({ signatures: z.array(z.string().min(1)).min(1), accountKeys: z.array(z.object({ pubkey: z.string().min(1) })).min(1) }),
  meta: z.object({ err: z.null(), preTokenBalances: z.array(BALANCE).nullish(), postTokenBalances: z.array(BALANCE) }),
});

/**
 * Reads a getBlock answer (`transactionDetails: "accounts"`, as JSON.parse gave it) for the
 * configured `mint`. A mainnet block holds ~1,300 transactions, ~850 of them votes: each is looked
 * at only as far as deciding it cannot pay us (meta.err not null, or no post token balance of the
 * mint), by hand, without copying; the few that can are checked with zod on exactly the fields
 * deposits read. Anything missing or mistyped on that path throws MalformedBlockError (the slot is
 * read again), so nothing is skipped for a shape we did not understand. A null meta (agave: status
 * not recorded) is a transaction without a result, skipped as before.
 */
export function readSlotBlock(slot: number, answer: unknown, mint: string): SlotBlock {
  const header = HEADER.safeParse(answer);
  if (!header.success) throw malformed(slot, 'block', header.error);
  const { transactions } = header.data;
  const mintTransactions: MintTransaction[] = [];
  for (let i = 0; i < transactions.length; i++) {
    const tx = transactions[i];
    if (!isObject(tx)) throw new MalformedBlockError(`getBlock ${slot}: transaction ${i} is not an object`, { slot, index: i });
    const meta = tx.meta;
    if (meta === null) continue;
    if (!isObject(meta)) throw new MalformedBlockError(`getBlock ${slot}: transaction ${i} has no meta`, { slot, index: i });
    if (meta.err === undefined) throw new MalformedBlockError(`getBlock ${slot}: transaction ${i} has no meta.err`, { slot, index: i });
    if (meta.err !== null) continue;
    const post = meta.postTokenBalances;
    if (post === undefined || post === null) continue;
    if (!Array.isArray(post)) throw new MalformedBlockError(`getBlock ${slot}: transaction ${i} postTokenBalances is not a list`, { slot, index: i });
    if (!post.some((b: unknown) => isObject(b) && b.mint === mint)) continue;
    const parsed = CANDIDATE.safeParse(tx);
    if (!parsed.success) throw malformed(slot, `transaction ${i}`, parsed.error);
    const { transaction, meta: m } = parsed.data;
    mintTransactions.push({
      signature: transaction.signatures[0]!,
      feePayer: transaction.accountKeys[0]!.pubkey,
      pre: (m.preTokenBalances ?? []).map(row),
      post: m.postTokenBalances.map(row),
    });
  }
  const { blockhash, previousBlockhash, parentSlot, blockTime } = header.data;
  return { blockhash, previousBlockhash, parentSlot, blockTime, transactionCount: transactions.length, mintTransactions };
}

function row(b: z.infer<typeof BALANCE>): TokenBalanceRow {
  return { accountIndex: b.accountIndex, mint: b.mint, owner: b.owner, programId: b.programId, amount: b.uiTokenAmount.amount };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(slot: number, what: string, error: z.ZodError): MalformedBlockError {
  const issue = error.issues[0];
  return new MalformedBlockError(`getBlock ${slot}: ${what} is not as expected`, { slot, path: issue?.path.join('.') ?? null, issue: issue?.message ?? null });
}
