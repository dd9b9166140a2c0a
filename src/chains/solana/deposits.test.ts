import { PublicKey } from '@solana/web3.js';
import type { AccountsModeBlockResponse, TokenBalance } from '@solana/web3.js';
import { PlainWatchedSet } from '../watched-set';
import { depositsInBlock } from './deposits';

const MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY2ndRqUqgfYh9p';
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const TOKEN_2022 = 'TokenzQdBNbLqP5VEhdkAS6EHFLC1PvvtMUm3sJD2kj';
const OURS = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const BUYER = 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk';

const bal = (accountIndex: number, amount: string, over: Partial<TokenBalance> = {}): TokenBalance => ({
  accountIndex,
  mint: MINT,
  owner: OURS,
  programId: TOKEN,
  uiTokenAmount: { amount, decimals: 6, uiAmount: null, uiAmountString: '' },
  ...over,
});

function block(txs: { err?: unknown; pre: TokenBalance[]; post: TokenBalance[] }[]): AccountsModeBlockResponse {
  return {
    blockhash: 'B1ockhash1111111111111111111111111111111111',
    previousBlockhash: 'P1ockhash1111111111111111111111111111111111',
    parentSlot: 9,
    blockHeight: 5,
    blockTime: 1_700_000_000,
    transactions: txs.map((t, i) => ({
      transaction: { signatures: [`sig${i}`], accountKeys: [{ pubkey: new PublicKey(BUYER), signer: true, writable: true, source: 'transaction' }] },
      meta: { err: t.err ?? null, fee: 5000, preBalances: [], postBalances: [], preTokenBalances: t.pre, postTokenBalances: t.post },
    })),
  } as unknown as AccountsModeBlockResponse;
}

const watched = new PlainWatchedSet();
watched.addAll([OURS]);
const filter = { network: 'SOLANA' as const, mint: MINT, decimals: 6, watched };

describe('depositsInBlock', () => {
  it('credits post - pre of a watched owner, pre absent = 0 (account created in the transaction)', () => {
    const out = depositsInBlock(
      10,
      block([
        { pre: [bal(1, '500000', { owner: BUYER })], post: [bal(1, '0', { owner: BUYER }), bal(2, '2500000')] },
        { pre: [bal(3, '1')], post: [bal(3, '1000001')] },
      ]),
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
      block([
        { err: { InstructionError: [0, 'Custom'] }, pre: [], post: [bal(1, '5000000')] },
        { pre: [], post: [bal(1, '5000000', { mint: 'So11111111111111111111111111111111111111112' })] },
        { pre: [], post: [bal(1, '5000000', { programId: TOKEN_2022 })] },
        { pre: [], post: [bal(1, '5000000', { programId: undefined })] },
        { pre: [bal(1, '9')], post: [bal(1, '8')] },
        { pre: [bal(1, '1', { owner: BUYER })], post: [bal(1, '5000000')] },
      ]),
      filter,
    );
    expect(out).toEqual([]);
  });
});
