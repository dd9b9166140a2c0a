import { NETWORK_FACTS } from '../../domain/networks';
import type { Clock } from '../../domain/clock';
import { blockDepth } from '../sync/depth';
import { BlockFollower } from '../sync/follower';
import type { SyncStatus } from '../sync/types';
import type {
  ChainAdapter,
  ChainCursor,
  ChainWatch,
  Confirmations,
  LandedPayout,
  PaymentLinkInput,
  PayoutFunds,
  PayoutFundsRequest,
  PayoutRequest,
  PayoutStatus,
  RpcObserver,
  SignedPayout,
  TransferPlace,
  WatchedSet,
  WatchOptions,
} from '../types';
import { SOLID_EVERY_BLOCKS, TronBlockSource } from './block-source';
import { BLOCK_MS } from './expiry';
import { tronHex, type TronCodec } from './codec';
import type { TronConfig } from './config';
import { readTronCursor, tronCursor } from './cursor';
import { TronNotInitializedError } from './errors';
import { TronHttpClient } from './http-client';
import { TronNode } from './node';
import { parseBlock } from './parse-block';
import { TronPayoutStatus } from './payout-status';
import { TronPayouts } from './payouts';
import { tronPayoutFunds } from './payout-funds';
import { checkToken } from './token-check';
import { TronwebSigner } from './tronweb-signer';
import { TronWatchedSet, tronMatcher } from './watched-set';

export interface TronAdapterInput {
  readonly config: TronConfig;
  readonly codec: TronCodec;
  readonly clock?: Clock;
  readonly onRpc?: RpcObserver;
}

/** A running TRON watch: the ChainWatch plus the follower's status (head, cursor, lag, last error). */
export interface TronWatch extends ChainWatch {
  status(): SyncStatus;
}

/** USDT's precision on TRON; the start-up check refuses any other. */
const DECIMALS = NETWORK_FACTS.TRC20.tokenDecimals;

/** Live adapter of TRC20 over a java-tron full node's HTTP API (TronGrid or an own node). */
export class TronAdapter implements ChainAdapter {
  readonly network = 'TRC20' as const;
  readonly mode = 'live' as const;
  readonly tokenContract: string;
  readonly tokenDecimals = DECIMALS;
  readonly deriveDepositAddresses: (from: number, count: number) => string[];
  private readonly config: TronConfig;
  private readonly codec: TronCodec;
  private readonly node: TronNode;
  private readonly closing = new AbortController();
  private readonly payouts: TronPayouts;
  private readonly payoutStatuses: TronPayoutStatus;
  /** The highest solidified height the block source has read (never lower; -1: none yet). */
  private solidHeight = -1;
  private initialized = false;
  private current: BlockFollower | null = null;

  constructor(input: TronAdapterInput) {
    this.config = input.config;
    this.codec = input.codec;
    if (!this.codec.isValidAddress(this.config.tokenAddress)) throw new RangeError(`TRC20: invalid token address ${this.config.tokenAddress}`);
    this.tokenContract = this.config.tokenAddress;
    const onRpc = input.onRpc;
    const http = new TronHttpClient({
      baseUrl: this.config.rpcUrl,
      apiKey: this.config.apiKey,
      timeoutMs: this.config.timeoutMs,
      retries: this.config.retries,
      backoff: this.config.retryBackoff,
      rps: this.config.rps,
      suspensionMs: this.config.suspensionMs,
      signal: this.closing.signal,
      onRequest: onRpc ? (method, ms, ok) => onRpc({ network: this.network, method, ms, ok }) : undefined,
    });
    this.node = new TronNode(http);
    this.deriveDepositAddresses = this.codec.deriveDepositAddresses.bind(this.codec);
    this.payouts = new TronPayouts({
      network: this.network,
      node: this.node,
      signer: new TronwebSigner(this.config.rpcUrl, http),
      hot: () => this.codec.hotWallet(),
      isValidAddress: (a) => this.codec.isValidAddress(a),
      token: this.tokenContract,
      decimals: DECIMALS,
      feeLimitSun: this.config.feeLimitSun,
    });
    this.payoutStatuses = new TronPayoutStatus(this.node, this.config.confirmations);
  }

  /** TRC20_CONFIRMATIONS: a solidified block this deep is final. */
  get finalityDepth(): number {
    return this.config.confirmations;
  }

  async init(): Promise<void> {
    await checkToken(this.node, this.network, this.tokenContract, DECIMALS);
    this.initialized = true;
  }

  watch(options: WatchOptions): TronWatch {
    if (!this.initialized) throw new TronNotInitializedError(this.network);
    const state = this.current?.status().state;
    if (state !== undefined && state !== 'stopped' && state !== 'failed') throw new Error(`${this.network}: a watch is already running; stop it first`);
    const source = new TronBlockSource(
      this.node,
      { network: this.network, tokenAccountHex: tronHex(this.tokenContract).slice(2).toLowerCase(), decimals: DECIMALS, watched: tronMatcher(options.watched) },
      {
        solidEveryBlocks: this.config.solidEveryBlocks ?? SOLID_EVERY_BLOCKS,
        headReuseMs: this.config.headReuseMs ?? BLOCK_MS,
        // A catch-up step's blocks plus the confirmations, so the head a range shows lets the step take a full range.
        rangeBlocks: (this.config.maxBlockRange ?? 20) + this.config.confirmations,
        concurrency: 4,
        onSolid: (height) => {
          this.solidHeight = Math.max(this.solidHeight, height);
        },
      },
    );
    this.current = new BlockFollower({
      network: this.network,
      source,
      from: options.from ? readTronCursor(this.network, options.from) : null,
      finalized: options.finalized ? readTronCursor(this.network, options.finalized) : null,
      cursorOf: tronCursor,
      sink: options.sink,
      onError: options.onError,
      confirmations: this.config.confirmations,
      maxRange: this.config.maxBlockRange ?? 20,
      pollIntervalMs: this.config.pollIntervalMs,
      backoff: this.config.backoff,
    });
    return this.current;
  }

  newWatchedSet(): WatchedSet {
    return new TronWatchedSet();
  }

  async blockAt(height: number): Promise<ChainCursor | null> {
    const block = parseBlock(await this.node.blockByNum(height));
    return block === null ? null : tronCursor(block.header);
  }

  /**
   * ChainAdapter.confirmationsAt: block depth under the cursor, final only once the block is also
   * solidified (the highest solidified head read so far); until then the count stops at
   * TRC20_CONFIRMATIONS - 1, as the follower's own transfer observations do.
   */
  confirmationsAt(place: TransferPlace, cursor: ChainCursor): Confirmations {
    return blockDepth(place.blockHeight, this.cursorHeight(cursor), this.config.confirmations, this.solidHeight);
  }

  /** ChainAdapter.cursorHeight: TRON's cursor is { height, blockId } of the last processed block. */
  cursorHeight(cursor: ChainCursor): number {
    return readTronCursor(this.network, cursor).height;
  }

  deriveDepositAddress(index: number): string {
    return this.codec.deriveDepositAddress(index);
  }

  crossCheckDepositAddresses(from: number, count: number): Promise<string[]> {
    return this.codec.crossCheckDepositAddresses(from, count);
  }

  sharedDepositAddress(): string {
    return this.codec.sharedDepositAddress();
  }

  isValidAddress(address: string): boolean {
    return this.codec.isValidAddress(address);
  }

  normalizeAddress(address: string): string {
    return this.codec.normalizeAddress(address);
  }

  /** tron:<address>?token=<contract>&amount=<decimal> (DESIGN.md, QR codes and payment links). */
  paymentLink(input: PaymentLinkInput): string {
    return this.codec.paymentLink({ ...input, tokenContract: this.tokenContract, tokenDecimals: DECIMALS });
  }

  signPayout(request: PayoutRequest): Promise<SignedPayout> {
    return this.payouts.sign(request);
  }

  payoutFunds(request: PayoutFundsRequest): Promise<PayoutFunds> {
    return tronPayoutFunds({ network: this.network, node: this.node, token: this.tokenContract, decimals: DECIMALS }, this.codec.hotWallet().address, request);
  }

  broadcastPayout(payout: SignedPayout): Promise<void> {
    return this.payouts.broadcast(payout);
  }

  payoutStatus(payout: SignedPayout): Promise<PayoutStatus> {
    return this.payoutStatuses.status(payout);
  }

  payoutLanded(txHash: string): Promise<LandedPayout | null> {
    return this.payoutStatuses.landed(txHash);
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.current?.stop();
    this.current = null;
  }
}
