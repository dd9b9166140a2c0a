import { getMint, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { Keypair, PublicKey } from '@solana/web3.js';
import { FamilyConfigError } from '../errors';
import type { NetworkCode } from '../../domain/networks';
import type { AddressCodec } from '../codec';
import type {
  ChainAdapter,
  ChainCursor,
  ChainWatch,
  Confirmations,
  LandedPayout,
  TransferPlace,
  PaymentLinkInput,
  PayoutFunds,
  PayoutFundsRequest,
  PayoutRequest,
  PayoutStatus,
  RpcObserver,
  SignedPayout,
  WatchedSet,
  WatchOptions,
} from '../types';
import { PlainWatchedSet } from '../watched-set';
import { DEFAULT_MIN_PRIORITY_FEE, SOLANA_BLOCK_CONCURRENCY_DEFAULT, SOLANA_TOKEN_DECIMALS, type SolanaLiveOptions } from './config';
import { RESEND_INTERVAL_MS } from './resender';
import { SolanaNotInitializedError } from './errors';
import { offCurveRefusal } from './payee';
import { SolanaPayouts } from './payouts';
import { solanaPayoutFunds } from './payout-funds';
import { finalizedSlotDepth, readSolanaCursor, solanaCursor } from './cursor';
import { BlockThread } from './block-thread';
import { RPC_TIMEOUT_MS, SolanaRpc } from './rpc';
import { SlotSource } from './slot-source';
import { SlotWatch, type SolanaLogger } from './slot-watch';

export interface SolanaAdapterConfig {
  readonly network: NetworkCode;
  readonly codec: AddressCodec;
  readonly options: SolanaLiveOptions;
  readonly onRpc?: RpcObserver;
  readonly logger?: SolanaLogger;
  /** How often a sent payout is sent again until it lands or expires; default RESEND_INTERVAL_MS (2 s). */
  readonly resendIntervalMs?: number;
  /** Watch retry backoff; default 500 ms doubling to 30 s. */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
}

/**
 * Live adapter of SOLANA (USDT SPL) over JSON-RPC with @solana/web3.js. Deposit addresses are owner
 * keys (the codec's m/44'/501'/i'/0'); their tokens land in associated token accounts. Only
 * finalized slots are read, so a payment is final when seen (finalityDepth 1, no reorgs); on the
 * current contract the watcher still counts confirmations as finalized slots past the payment's.
 */
export class SolanaAdapter implements ChainAdapter {
  readonly mode = 'live' as const;
  readonly network: NetworkCode;
  readonly tokenContract: string;
  readonly tokenDecimals = SOLANA_TOKEN_DECIMALS;
  readonly finalityDepth = 1;
  private readonly rpc: SolanaRpc;
  private readonly source: SlotSource;
  private payouts: SolanaPayouts | null = null;
  private current: SlotWatch | null = null;

  constructor(private readonly config: SolanaAdapterConfig) {
    this.network = config.network;
    this.tokenContract = config.options.SOLANA_TOKEN_MINT;
    const onRpc = config.onRpc;
    this.rpc = new SolanaRpc(config.options.SOLANA_RPC_URL, onRpc ? (method, ms, ok) => onRpc({ network: config.network, method, ms, ok }) : undefined);
    this.source = new SlotSource(this.rpc, new BlockThread({ url: config.options.SOLANA_RPC_URL, mint: config.options.SOLANA_TOKEN_MINT, timeoutMs: RPC_TIMEOUT_MS }));
  }

  /** The mint must exist, belong to the classic Token program and have 6 decimals; otherwise the daemon refuses to start. */
  async init(): Promise<void> {
    const mint = new PublicKey(this.tokenContract);
    const info = await this.rpc.call('getAccountInfo', (c) => c.getAccountInfo(mint));
    if (info === null) throw new FamilyConfigError('SOLANA_TOKEN_MINT', `no account at ${this.tokenContract} on ${this.config.options.SOLANA_RPC_URL}`);
    if (!info.owner.equals(TOKEN_PROGRAM_ID)) {
      throw new FamilyConfigError(
        'SOLANA_TOKEN_MINT',
        `${this.tokenContract} belongs to ${info.owner.toBase58()}, not the classic Token program ${TOKEN_PROGRAM_ID.toBase58()} (Token-2022 mints are refused)`,
      );
    }
    const state = await this.rpc
      .call('getAccountInfo', (c) => getMint(c, mint, 'finalized', TOKEN_PROGRAM_ID))
      .catch((error: unknown) => {
        throw new FamilyConfigError('SOLANA_TOKEN_MINT', `${this.tokenContract} is not a mint: ${error instanceof Error ? error.name : String(error)}`);
      });
    if (state.decimals !== SOLANA_TOKEN_DECIMALS) throw new FamilyConfigError('SOLANA_TOKEN_MINT', `${this.tokenContract} has ${state.decimals} decimals; USDT has ${SOLANA_TOKEN_DECIMALS}`);
    const hot = this.config.codec.hotWallet();
    // The operator funds this address (SOL for fees and rent, USDT to pay out): say it at every start.
    this.config.logger?.info({ network: this.network, mint: this.tokenContract, hotWallet: hot.address }, 'SOLANA live: mint checked');
    this.payouts = new SolanaPayouts({
      rpc: this.rpc,
      mint,
      decimals: SOLANA_TOKEN_DECIMALS,
      hot: Keypair.fromSeed(Buffer.from(hot.privateKeyHex, 'hex')),
      priorityFee: { floor: this.config.options.SOLANA_MIN_PRIORITY_FEE ?? DEFAULT_MIN_PRIORITY_FEE, cap: this.config.options.SOLANA_MAX_PRIORITY_FEE },
      resendIntervalMs: this.config.resendIntervalMs ?? RESEND_INTERVAL_MS,
    });
  }

  watch(options: WatchOptions): ChainWatch {
    if (this.payouts === null) throw new SolanaNotInitializedError();
    this.current = new SlotWatch({
      network: this.network,
      source: this.source,
      filter: { network: this.network, mint: this.tokenContract, decimals: SOLANA_TOKEN_DECIMALS, watched: options.watched },
      from: options.from ? readSolanaCursor(this.network, options.from) : null,
      sink: options.sink,
      onError: options.onError,
      logger: this.config.logger,
      pollIntervalMs: this.config.options.SOLANA_POLL_INTERVAL_MS,
      maxSlotRange: this.config.options.SOLANA_MAX_SLOT_RANGE,
      blockConcurrency: this.config.options.SOLANA_BLOCK_CONCURRENCY ?? SOLANA_BLOCK_CONCURRENCY_DEFAULT,
      backoff: this.config.backoff ?? { initialMs: 500, maxMs: 30_000 },
    });
    return this.current;
  }

  /** A rescan cursor: the highest produced finalized slot at or below `height` (null above the finalized slot). */
  async blockAt(height: number): Promise<ChainCursor | null> {
    if (height > (await this.source.finalizedSlot())) return null;
    const slots = await this.source.producedSlots(Math.max(0, height - 1000), height);
    for (const slot of slots.reverse()) {
      const read = await this.source.block(slot);
      if (read.kind === 'block') return solanaCursor(slot, read.block.blockhash);
    }
    return null;
  }

  /** ChainAdapter.cursorHeight: the slot of a SOLANA cursor ({ slot, blockhash }). */
  cursorHeight(cursor: ChainCursor): number {
    return readSolanaCursor(this.network, cursor).slot;
  }

  /** ChainAdapter.confirmationsAt: final once reached (finalized slots only); counted in finalized slots. */
  confirmationsAt(place: TransferPlace, cursor: ChainCursor): Confirmations {
    return finalizedSlotDepth(place, readSolanaCursor(this.network, cursor));
  }

  newWatchedSet(): WatchedSet {
    return new PlainWatchedSet();
  }

  deriveDepositAddress(index: number): string {
    return this.config.codec.deriveDepositAddress(index);
  }

  crossCheckDepositAddresses(from: number, count: number): Promise<string[]> {
    return this.config.codec.crossCheckDepositAddresses(from, count);
  }

  sharedDepositAddress(): string {
    return this.config.codec.sharedDepositAddress();
  }

  isValidAddress(address: string): boolean {
    return this.config.codec.isValidAddress(address);
  }

  normalizeAddress(address: string): string {
    return this.config.codec.normalizeAddress(address);
  }

  /** ChainAdapter.payeeRefusal: an off-curve address (a token account or PDA) is no wallet to pay. */
  payeeRefusal(address: string): { code: string; message: string } | null {
    return this.isValidAddress(address) ? offCurveRefusal(address) : null;
  }

  /** ChainAdapter.payeeAccountRefusal: an address whose account the Token or Token-2022 program owns. */
  async payeeAccountRefusal(address: string): Promise<{ code: string; message: string } | null> {
    if (this.payeeRefusal(address) !== null || !this.isValidAddress(address)) return null;
    return this.payout().payeeAccountRefusal(address);
  }

  /** Solana Pay: solana:<owner>?amount=…&spl-token=<mint>. */
  paymentLink(input: PaymentLinkInput): string {
    return this.config.codec.paymentLink({ ...input, tokenContract: this.tokenContract, tokenDecimals: SOLANA_TOKEN_DECIMALS });
  }

  signPayout(request: PayoutRequest): Promise<SignedPayout> {
    return this.payout().sign(request);
  }

  payoutFunds(request: PayoutFundsRequest): Promise<PayoutFunds> {
    this.payout(); // after init (the mint is checked there)
    const hot = new PublicKey(this.config.codec.hotWallet().address);
    return solanaPayoutFunds({ rpc: this.rpc, mint: new PublicKey(this.tokenContract), decimals: SOLANA_TOKEN_DECIMALS, hot, maxPriorityFee: this.config.options.SOLANA_MAX_PRIORITY_FEE }, request);
  }

  broadcastPayout(payout: SignedPayout): Promise<void> {
    return this.payout().broadcast(payout);
  }

  payoutStatus(payout: SignedPayout): Promise<PayoutStatus> {
    return this.payout().status(payout);
  }

  /** ChainAdapter.payoutLanded: a signature declared expired, found finalized after all (host watch). */
  async payoutLanded(txHash: string): Promise<LandedPayout | null> {
    const landed = await this.payout().landed(txHash);
    return landed ? { blockHeight: landed.slot, reverted: landed.reverted } : null;
  }

  async close(): Promise<void> {
    this.payouts?.close();
    await this.current?.stop();
    this.current = null;
    await this.source.close();
  }

  private payout(): SolanaPayouts {
    if (this.payouts === null) throw new SolanaNotInitializedError();
    return this.payouts;
  }
}
