import { PlainWatchedSet } from '../watched-set';
import { readSlotBlock } from './block-reader';
import { depositsInBlock } from './deposits';
import { MalformedBlockError } from './errors';

const MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY2ndRqUqgfYh9p';
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const TOKEN_2022 = 'TokenzQdBNbLqP5VEhdkAS6EHFLC1PvvtMUm3sJD2kj';
const OURS = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const BUYER = 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk';

/** A token balance row as getBlock answers it (agave UiTransactionTokenBalance). */
type TokenBalance = { accountIndex: number; mint: string; owner?: string; programId?: string; uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string } };

const bal = (accountIndex: number, amount: string, over: Partial<TokenBalance> = {}): TokenBalance => ({
  accountIndex,
  mint: MINT,
  owner: OURS,
  programId: TOKEN,
  uiTokenAmount: { amount, decimals: 6, uiAmount: null, uiAmountString: '' },
  ...over,
});

/** A getBlock answer (transactionDetails "accounts") as JSON.parse gives it. */
function block(txs: { err?: unknown; pre: TokenBalance[]; post: TokenBalance[] }[]): Record<string, unknown> {
  return {
    blockhash: 'B1ockhash1111111111111111111111111111111111',
    previousBlockhash: 'P1ockhash1111111111111111111111111111111111',
    parentSlot: 9,
    blockHeight: 5,
    blockTime: 1_700_000_000,
    transactions: txs.map((t, i) => ({
      transaction: { signatures: [`sig${i}`], accountKeys: [{ pubkey: BUYER, signer: true, writable: true, source: 'transaction' }] },
      meta: { err: t.err ?? null, fee: 5000, preBalances: [], postBalances: [], preTokenBalances: t.pre, postTokenBalances: t.post },
    })),
  };
}

const read = (raw: unknown) => readSlotBlock(10, raw, MINT);

const watched = new PlainWatchedSet();
watched.addAll([OURS]);
const filter = { network: 'SOLANA' as const, mint: MINT, decimals: 6, watched };

describe('depositsInBlock', () => {
  it('credits post - pre of a watched owner, pre absent = 0 (account created in the transaction)', () => {
    const out = depositsInBlock(
      10,
      read(
        block([
          { pre: [bal(1, '500000', { owner: BUYER })], post: [bal(1, '0', { owner: BUYER }), bal(2, '2500000')] },
          { pre: [bal(3, '1')], post: [bal(3, '1000001')] },
        ]),
      ),
      filter,
    );
    expect(out.map((t) => [t.txHash, t.eventIndex, t.amount, t.to, t.from, t.blockHeight])).toEqual([
      ['sig0', 2, '2.5', OURS, BUYER, 10],
      ['sig1', 3, '1', OURS, BUYER, 10],
    ]);
  });

  it('ignores a failed transaction, another mint, the Token-2022 program, a decrease and an owner change', () => {
    const out = depositsInBlock(
      10,
      read(
        block([
          { err: { InstructionError: [0, 'Custom'] }, pre: [], post: [bal(1, '5000000')] },
          { pre: [], post: [bal(1, '5000000', { mint: 'So11111111111111111111111111111111111111112' })] },
          { pre: [], post: [bal(1, '5000000', { programId: TOKEN_2022 })] },
          { pre: [], post: [bal(1, '5000000', { programId: undefined })] },
          { pre: [bal(1, '9')], post: [bal(1, '8')] },
          { pre: [bal(1, '1', { owner: BUYER })], post: [bal(1, '5000000')] },
        ]),
      ),
      filter,
    );
    expect(out).toEqual([]);
  });
});

describe('readSlotBlock', () => {
  it('keeps only successful transactions with a post balance of the mint, every row of each', () => {
    const raw = block([
      { pre: [], post: [] }, // a vote: no token balances
      { pre: [], post: [bal(1, '5', { mint: 'So11111111111111111111111111111111111111112' })] },
      { err: { InstructionError: [0, 'Custom'] }, pre: [], post: [bal(1, '5')] },
      { pre: [bal(2, '7', { mint: 'So11111111111111111111111111111111111111112' })], post: [bal(1, '5')] },
    ]);
    const b = read(raw);
    expect(b.transactionCount).toBe(4);
    expect(b.mintTransactions.map((t) => [t.signature, t.feePayer, t.pre.length, t.post.length])).toEqual([['sig3', BUYER, 1, 1]]);
    expect([b.parentSlot, b.blockTime, b.blockhash]).toEqual([9, 1_700_000_000, raw.blockhash]);
  });

  it('a field deposits read missing or mistyped throws MalformedBlockError: the slot is read again, never passed over', () => {
    const cases: ((raw: Record<string, unknown>) => void)[] = [
      (raw) => delete raw.parentSlot,
      (raw) => (raw.transactions = 'none'),
      (raw) => delete (raw.transactions as { meta: Record<string, unknown> }[])[0]!.meta.err,
      (raw) => ((raw.transactions as { meta: Record<string, unknown> }[])[0]!.meta.postTokenBalances = {}),
      (raw) => ((raw.transactions as { meta: { postTokenBalances: TokenBalance[] } }[])[0]!.meta.postTokenBalances[0]!.uiTokenAmount.amount = '1.5'),
      (raw) => ((raw.transactions as { transaction: { signatures: unknown[] } }[])[0]!.transaction.signatures = []),
      (raw) => ((raw.transactions as unknown[])[0] = 7),
    ];
    for (const spoil of cases) {
      const raw = block([{ pre: [], post: [bal(1, '5000000')] }]);
      spoil(raw);
      expect(() => read(raw)).toThrow(MalformedBlockError);
    }
    expect(read(block([{ pre: [], post: [bal(1, '5000000')] }])).mintTransactions).toHaveLength(1);
  });
});
