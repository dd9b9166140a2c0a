import { address, getTransactionDecoder, type Transaction as KitTransaction } from '@solana/kit';
import { AccountLayout, ACCOUNT_SIZE, MINT_SIZE, MintLayout, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { Keypair, PublicKey, VersionedTransaction } from '@solana/web3.js';
import { base58 } from '@scure/base';
import { LiteSVM } from 'litesvm';

/** The real USDT mint on mainnet: the harness plants its mint account at exactly this address. */
export const USDT_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY2ndRqUqgfYh9p';
/** Agave: a blockhash is usable in blocks up to 150 block heights above its own. */
export const BLOCKHASH_VALIDITY = 150;

export interface TokenBalance {
  readonly accountIndex: number;
  readonly mint: string;
  readonly owner: string;
  readonly programId: string;
  readonly uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}

export interface BlockTransaction {
  readonly signatures: string[];
  readonly accountKeys: { pubkey: string; signer: boolean; writable: boolean; source: 'transaction' }[];
  readonly version: 'legacy' | 0;
  readonly meta: {
    err: unknown;
    fee: number;
    preBalances: number[];
    postBalances: number[];
    preTokenBalances: TokenBalance[];
    postTokenBalances: TokenBalance[];
    logMessages: string[];
    computeUnitsConsumed: number;
  };
}

export interface Block {
  readonly slot: number;
  readonly blockhash: string;
  readonly previousBlockhash: string;
  readonly parentSlot: number;
  readonly blockHeight: number;
  readonly blockTime: number;
  readonly transactions: BlockTransaction[];
}

export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** A JSON-RPC error as agave answers it (code and message), thrown by the chain and served by the RPC server. */
export class RpcFault extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A Solana ledger over litesvm 1.5 (the real Token, Token-2022 and ATA programs): slots, some of
 * them skipped, blocks with pre/post token balances computed from the token accounts around each
 * transaction, a `finalized` commitment `finalityLag` blocks behind the tip, and blockhashes valid
 * for 150 block heights. Transactions sent are queued and land in the next produced block.
 */
export class SvmChain {
  readonly svm: LiteSVM;
  readonly mintAuthority = Keypair.generate();
  readonly blocks = new Map<number, Block>();
  /** Produced slots, ascending. */
  readonly produced: number[] = [];
  /** Status of every landed transaction by signature. */
  readonly statuses = new Map<string, { slot: number; err: unknown }>();
  /** Transactions accepted by sendTransaction, in order; applied in the next block. */
  private pending: Buffer[] = [];
  private readonly blockhashes = new Map<string, number>();
  private slot = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Produced blocks behind the tip that are not finalized yet. */
  finalityLag = 2;
  /** Slots for which a block is skipped (no block produced); consulted as each slot comes. */
  skipSlot: (slot: number) => boolean = (slot) => slot % 5 === 3;
  /** Blockhashes sent that expired before landing, and duplicates: accepted by the RPC, then dropped. */
  dropped: string[] = [];

  constructor() {
    this.svm = new LiteSVM().withBlockhashCheck(false).withTransactionHistory(0n);
    const genesis: Block = {
      slot: 0,
      blockhash: this.svm.latestBlockhash(),
      previousBlockhash: '11111111111111111111111111111111',
      parentSlot: 0,
      blockHeight: 0,
      blockTime: nowSeconds(),
      transactions: [],
    };
    this.record(genesis);
    this.plantMint(USDT_MINT, TOKEN_PROGRAM_ID);
    this.airdrop(this.mintAuthority.publicKey, 1000);
  }

  /** A mint account (6 decimals unless told) owned by `program`, at `mint`, with our authority. */
  plantMint(mint: string, program: PublicKey, decimals = 6): PublicKey {
    const data = Buffer.alloc(MINT_SIZE);
    MintLayout.encode(
      { mintAuthorityOption: 1, mintAuthority: this.mintAuthority.publicKey, supply: 0n, decimals, isInitialized: true, freezeAuthorityOption: 0, freezeAuthority: PublicKey.default },
      data,
    );
    this.svm.setAccount({
      address: address(mint),
      data,
      executable: false,
      lamports: this.svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE)),
      programAddress: address(program.toBase58()),
      space: BigInt(MINT_SIZE),
    } as never);
    return new PublicKey(mint);
  }

  airdrop(to: PublicKey, sol: number): void {
    this.svm.airdrop(address(to.toBase58()), BigInt(Math.round(sol * 1e9)) as never);
  }

  tip(): Block {
    return this.blocks.get(this.produced[this.produced.length - 1]!)!;
  }

  /** The highest block at `commitment`: processed and confirmed are the tip here; finalized lags. */
  at(commitment: Commitment = 'finalized'): Block {
    const lag = commitment === 'finalized' ? this.finalityLag : 0;
    return this.blocks.get(this.produced[Math.max(0, this.produced.length - 1 - lag)]!)!;
  }

  blockhashValidUntil(blockhash: string): number | undefined {
    return this.blockhashes.get(blockhash);
  }

  /**
   * sendTransaction: checks what a node checks before forwarding (decodes, a known unexpired
   * blockhash unless `skipPreflight`), queues it for the next block, returns its signature. With
   * skipPreflight an expired transaction is accepted and dropped, as a leader drops it.
   */
  submit(wire: Buffer, skipPreflight: boolean): string {
    const tx = VersionedTransaction.deserialize(wire);
    const signature = encodeSignature(tx.signatures[0]!);
    const validUntil = this.blockhashes.get(tx.message.recentBlockhash);
    const expired = validUntil === undefined || validUntil < this.tip().blockHeight + 1;
    if (expired && !skipPreflight) throw new RpcFault(-32002, 'Transaction simulation failed: Blockhash not found');
    this.pending.push(wire);
    return signature;
  }

  /** The next slots until one is produced (skipped ones are passed), applying the queued transactions. */
  produce(): Block {
    let slot = this.slot + 1;
    while (this.skipSlot(slot)) slot += 1;
    this.slot = slot;
    const parent = this.tip();
    const blockHeight = parent.blockHeight + 1;
    this.svm.warpToSlot(BigInt(slot));
    const transactions: BlockTransaction[] = [];
    const queued = this.pending;
    this.pending = [];
    for (const wire of queued) {
      const landed = this.apply(wire, blockHeight, slot);
      if (landed) transactions.push(landed);
    }
    this.svm.expireBlockhash();
    const block: Block = { slot, blockhash: this.svm.latestBlockhash(), previousBlockhash: parent.blockhash, parentSlot: parent.slot, blockHeight, blockTime: nowSeconds(), transactions };
    this.record(block);
    return block;
  }

  /** Produces `n` blocks (and the skipped slots between them). */
  advance(n: number): Block {
    for (let i = 0; i < n; i++) this.produce();
    return this.tip();
  }

  /** Produces until the block holding `signature` is finalized. */
  finalize(signature: string): { slot: number; err: unknown } {
    for (let i = 0; i < 1000; i++) {
      const status = this.statuses.get(signature);
      if (status && status.slot <= this.at('finalized').slot) return status;
      this.produce();
    }
    throw new Error(`${signature} never landed`);
  }

  autoProduce(intervalMs: number): void {
    this.stopAuto();
    this.timer = setInterval(() => this.produce(), intervalMs);
    this.timer.unref();
  }

  stopAuto(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  tokenAmount(tokenAccount: PublicKey): bigint | null {
    const acc = this.svm.getAccount(address(tokenAccount.toBase58()));
    if (!acc.exists || acc.data.length < ACCOUNT_SIZE) return null;
    return AccountLayout.decode(Buffer.from(acc.data)).amount;
  }

  /** When (performance.now()) each produced slot became finalized (the detection bench's t0). */
  readonly finalizedAt = new Map<number, number>();

  private record(block: Block): void {
    this.blocks.set(block.slot, block);
    this.produced.push(block.slot);
    this.blockhashes.set(block.blockhash, block.blockHeight + BLOCKHASH_VALIDITY);
    this.finalizedAt.set(this.at('finalized').slot, performance.now());
  }

  /** One transaction in a block: litesvm runs it; failed ones land with their error, as on mainnet. */
  private apply(wire: Buffer, blockHeight: number, slot: number): BlockTransaction | null {
    const tx = VersionedTransaction.deserialize(wire);
    const signature = encodeSignature(tx.signatures[0]!);
    const validUntil = this.blockhashes.get(tx.message.recentBlockhash);
    if (validUntil === undefined || validUntil < blockHeight || this.statuses.has(signature)) {
      this.dropped.push(signature);
      return null;
    }
    const keys = tx.message.staticAccountKeys;
    const header = tx.message.header;
    const pre = this.tokenBalances(keys);
    const preLamports = keys.map((k) => this.lamports(k));
    const kit = getTransactionDecoder().decode(wire) as KitTransaction;
    const result = this.svm.sendTransaction(kit as never);
    const failed = 'err' in result && typeof (result as { err?: unknown }).err === 'function';
    const meta = failed ? (result as unknown as { meta(): { logs(): string[]; computeUnitsConsumed(): bigint } }).meta() : (result as unknown as { logs(): string[]; computeUnitsConsumed(): bigint });
    const err = failed ? { HarnessError: String((result as unknown as { err(): unknown }).err()) } : null;
    this.statuses.set(signature, { slot, err });
    const n = keys.length;
    return {
      signatures: tx.signatures.map(encodeSignature),
      accountKeys: keys.map((k, i) => ({
        pubkey: k.toBase58(),
        signer: i < header.numRequiredSignatures,
        writable: i < header.numRequiredSignatures ? i < header.numRequiredSignatures - header.numReadonlySignedAccounts : i < n - header.numReadonlyUnsignedAccounts,
        source: 'transaction' as const,
      })),
      version: tx.version === 'legacy' ? 'legacy' : 0,
      meta: {
        err,
        fee: 5000 * tx.signatures.length,
        preBalances: preLamports,
        postBalances: keys.map((k) => this.lamports(k)),
        preTokenBalances: pre,
        postTokenBalances: this.tokenBalances(keys),
        logMessages: meta.logs(),
        computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
      },
    };
  }

  private lamports(key: PublicKey): number {
    return Number(this.svm.getBalance(address(key.toBase58())) ?? 0n);
  }

  /** What agave's token-balance collector reports: every account of the transaction that is a token account of either token program. */
  private tokenBalances(keys: readonly PublicKey[]): TokenBalance[] {
    const out: TokenBalance[] = [];
    keys.forEach((key, accountIndex) => {
      const acc = this.svm.getAccount(address(key.toBase58()));
      if (!acc.exists || acc.data.length < ACCOUNT_SIZE) return;
      const program = acc.programAddress as string;
      if (program !== TOKEN_PROGRAM_ID.toBase58() && program !== TOKEN_2022_PROGRAM_ID.toBase58()) return;
      const state = AccountLayout.decode(Buffer.from(acc.data).subarray(0, ACCOUNT_SIZE));
      if (state.state === 0) return;
      const mint = this.svm.getAccount(address(state.mint.toBase58()));
      const decimals = mint.exists ? MintLayout.decode(Buffer.from(mint.data).subarray(0, MINT_SIZE)).decimals : 0;
      const ui = Number(state.amount) / 10 ** decimals;
      out.push({
        accountIndex,
        mint: state.mint.toBase58(),
        owner: state.owner.toBase58(),
        programId: program,
        uiTokenAmount: { amount: state.amount.toString(), decimals, uiAmount: ui, uiAmountString: String(ui) },
      });
    });
    return out;
  }
}

function encodeSignature(bytes: Uint8Array): string {
  return base58.encode(bytes);
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
