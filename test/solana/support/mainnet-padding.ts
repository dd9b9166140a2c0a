import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { seededRandom } from '../../support/seeded-random';
import { USDT_MINT } from './svm-chain';

/** What a mainnet block holds besides our payments (mainnet, 2025: ~1,300 transactions, ~850 of them votes). */
export interface PaddingShape {
  readonly votes: number;
  /** Strangers' token transfers: USDT and other mints between owners nobody watches, some failed. */
  readonly transfers: number;
}

export const MAINNET_BLOCK: PaddingShape = { votes: 850, transfers: 450 };

const VOTE_PROGRAM = 'Vote111111111111111111111111111111111111111';
const SYSVAR_SLOT_HASHES = 'SysvarS1otHashes111111111111111111111111111';
const SYSVAR_CLOCK = 'SysvarC1ock11111111111111111111111111111111';
const TOKEN = TOKEN_PROGRAM_ID.toBase58();
const USDC_MINT = 'EPjFWJd5AufqSSqeM2qJxyfvLEg3DYh5nKVfZYCgRdCb';
/** Distinct padding sets served in turn by default (generating one costs ~100-150 ms; blocks need not all differ). */
const SETS = 6;
const KEY_POOL = 4000;

/**
 * Padding that brings a harness block to mainnet size in getBlock's `transactionDetails: "accounts"`
 * shape (agave's build_simple_ui_transaction_status_meta: err, status, fee, pre/post balances,
 * pre/post token balances; no logs, no inner instructions): vote transactions (a signer, its vote
 * account, two sysvars, the vote program; no token balances) and strangers' transfers (~24 account
 * keys, some from lookup tables, 3-4 token accounts of USDT or USDC before and after, one in 12
 * failed). ~3 MB of JSON per block at MAINNET_BLOCK. Kept as JSON text, ready to splice into a
 * getBlock answer: a few sets are generated once and served in turn, so the harness spends no CPU
 * per block on it. No owner here is any test's deposit address (random keys).
 */
export class MainnetPadding {
  private readonly sets: string[] = [];
  readonly transactions: number;

  constructor(
    readonly shape: PaddingShape = MAINNET_BLOCK,
    seed = 46,
    sets = SETS,
  ) {
    const random = seededRandom(seed);
    const keys = Array.from({ length: KEY_POOL }, () => base58.encode(randomBytes(32)));
    const key = (): string => keys[Math.floor(random() * keys.length)]!;
    const signature = (): string => base58.encode(randomBytes(64));
    for (let i = 0; i < sets; i++) {
      const txs: string[] = [];
      for (let v = 0; v < shape.votes; v++) txs.push(JSON.stringify(vote(key, signature, random)));
      for (let t = 0; t < shape.transfers; t++) txs.push(JSON.stringify(transfer(key, signature, random)));
      // Votes and transfers interleaved as a leader packs them.
      shuffle(txs, random);
      this.sets.push(txs.join(','));
    }
    this.transactions = shape.votes + shape.transfers;
  }

  /** The padding of `slot` as JSON array elements (comma-joined, no brackets). */
  forSlot(slot: number): string {
    return this.sets[slot % this.sets.length]!;
  }

  /** Bytes of padding JSON per block (for the bench's notes). */
  get bytes(): number {
    return Buffer.byteLength(this.sets[0]!);
  }
}

function vote(key: () => string, signature: () => string, random: () => number): object {
  const authority = key();
  const lamports = 1_000_000_000 + Math.floor(random() * 1e9);
  return {
    transaction: {
      accountKeys: [
        { pubkey: authority, signer: true, source: 'transaction', writable: true },
        { pubkey: key(), signer: false, source: 'transaction', writable: true },
        { pubkey: SYSVAR_SLOT_HASHES, signer: false, source: 'transaction', writable: false },
        { pubkey: SYSVAR_CLOCK, signer: false, source: 'transaction', writable: false },
        { pubkey: VOTE_PROGRAM, signer: false, source: 'transaction', writable: false },
      ],
      signatures: [signature()],
    },
    meta: {
      err: null,
      fee: 5000,
      postBalances: [lamports - 5000, 27_074_400_000, 1_169_280, 1_169_280, 1],
      postTokenBalances: [],
      preBalances: [lamports, 27_074_400_000, 1_169_280, 1_169_280, 1],
      preTokenBalances: [],
      status: { Ok: null },
    },
    version: 'legacy',
  };
}

function transfer(key: () => string, signature: () => string, random: () => number): object {
  const n = 18 + Math.floor(random() * 14);
  const accountKeys = Array.from({ length: n }, (_, i) => ({ pubkey: key(), signer: i === 0, source: i < n - 6 ? 'transaction' : 'lookupTable', writable: i < n / 2 }));
  const failed = random() < 1 / 12;
  const mint = random() < 0.5 ? USDT_MINT : USDC_MINT;
  const balances = 3 + Math.floor(random() * 2);
  const pre: object[] = [];
  const post: object[] = [];
  for (let b = 0; b < balances; b++) {
    const accountIndex = 1 + b;
    const owner = key();
    const before = BigInt(Math.floor(random() * 1e12));
    const delta = failed ? 0n : BigInt(Math.floor(random() * 1e9)) * (b % 2 === 0 ? -1n : 1n);
    const after = before + delta < 0n ? 0n : before + delta;
    pre.push(tokenBalance(accountIndex, mint, owner, before));
    post.push(tokenBalance(accountIndex, mint, owner, after));
  }
  const lamports = Array.from({ length: n }, () => Math.floor(random() * 1e11));
  const fee = 5000 + Math.floor(random() * 100_000);
  return {
    transaction: { accountKeys, signatures: [signature()] },
    meta: {
      err: failed ? { InstructionError: [2, { Custom: 1 }] } : null,
      fee,
      postBalances: lamports.map((l, i) => (i === 0 ? l - fee : l)),
      postTokenBalances: post,
      preBalances: lamports,
      preTokenBalances: pre,
      status: failed ? { Err: { InstructionError: [2, { Custom: 1 }] } } : { Ok: null },
    },
    version: 0,
  };
}

function tokenBalance(accountIndex: number, mint: string, owner: string, amount: bigint): object {
  const ui = Number(amount) / 1e6;
  return { accountIndex, mint, owner, programId: TOKEN, uiTokenAmount: { amount: amount.toString(), decimals: 6, uiAmount: ui, uiAmountString: String(ui) } };
}

function shuffle<T>(items: T[], random: () => number): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
