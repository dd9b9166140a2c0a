import { BlockNotFoundError, type Hex, type PublicClient } from 'viem';
import { NETWORK_FACTS } from '../../domain/networks';
import { blockCursor, readBlockCursor } from '../sync/block-cursor';
import { blockDepth } from '../sync/depth';
import { BlockFollower } from '../sync/follower';
import type { SyncStatus } from '../sync/types';
import type {
  ChainAdapter,
  ChainCursor,
  Confirmations,
  TransferPlace,
  ChainWatch,
  PaymentLinkInput,
  PayoutFunds,
  PayoutFundsRequest,
  PayoutRequest,
  PayoutStatus,
  SignedPayout,
  WatchedSet,
  WatchOptions,
} from '../types';
import { ERC20_ABI } from './abi';
import { EvmBlockSource } from './block-source';
import { createEvmClient } from './client';
import { EVM_GAS_COIN, resolveEvmConfig, type EvmAdapterConfig, type EvmNetworkCode, type ResolvedEvmConfig } from './config';
import { AdapterNotInitializedError, ChainIdMismatchError, TokenContractMissingError, TokenDecimalsMismatchError } from './errors';
import { EvmPayouts } from './payouts';
import { EvmCodec } from './codec';
import { EvmSweeps } from './sweeps';
import { classifyRpcError } from './rpc-errors';
import { EvmWatchedSet, evmMatcher } from './watched-set';

/** A running EVM watch: the ChainWatch plus the follower's status (head, cursor, lag, last error). */
export interface EvmWatch extends ChainWatch {
  status(): SyncStatus;
}

/** Live adapter of BEP20, POLYGON and ARBITRUM over JSON-RPC (viem). */
export class EvmAdapter implements ChainAdapter {
  readonly mode = 'live' as const;
  readonly network: EvmNetworkCode;
  readonly tokenContract: string;
  /** ChainAdapter.deriveDepositAddresses: the codec's range derivation, where it has one. */
  readonly deriveDepositAddresses?: (from: number, count: number) => string[];
  /** ChainAdapter.normalizeDerivedAddress: the codec's, where it has one. */
  readonly normalizeDerivedAddress?: (address: string) => string;
  private readonly config: ResolvedEvmConfig;
  private readonly client: PublicClient;
  private decimals: number;
  private chainId: number | null = null;
  private payouts: EvmPayouts | null = null;
  /** Set by init() when the deposit keys can sign (chains/sweeps.ts). */
  sweeps?: EvmSweeps;
  private current: BlockFollower | null = null;

  constructor(config: EvmAdapterConfig) {
    this.config = resolveEvmConfig(config);
    this.network = this.config.network;
    if (!this.config.codec.isValidAddress(this.config.tokenAddress)) throw new RangeError(`${this.network}: invalid token address ${this.config.tokenAddress}`);
    this.tokenContract = this.config.tokenAddress;
    this.decimals = this.config.expectedDecimals;
    const onRpc = this.config.onRpc;
    this.client = createEvmClient(this.config.rpcUrl, this.config.rpcTimeoutMs, onRpc ? (method, ms, ok) => onRpc({ network: this.config.network, method, ms, ok }) : undefined);
    this.deriveDepositAddresses = this.config.codec.deriveDepositAddresses?.bind(this.config.codec);
    this.normalizeDerivedAddress = this.config.codec.normalizeDerivedAddress?.bind(this.config.codec);
  }

  get tokenDecimals(): number {
    return this.decimals;
  }

  /** The follower's window (<CODE>_CONFIRMATIONS at start): a block this deep is final. */
  get finalityDepth(): number {
    return this.config.confirmations;
  }

  /** Checks the chain id (when configured), that the token is a contract, and its decimals. */
  async init(): Promise<void> {
    const token = this.token();
    const chainId = await this.client.getChainId();
    if (this.config.expectedChainId !== undefined && chainId !== this.config.expectedChainId) throw new ChainIdMismatchError(this.network, this.config.expectedChainId, chainId);
    const code = await this.client.getCode({ address: token });
    if (code === undefined || code === '0x') throw new TokenContractMissingError(this.network, this.tokenContract);
    const decimals = await this.client.readContract({ address: token, abi: ERC20_ABI, functionName: 'decimals' });
    if (decimals !== this.config.expectedDecimals) throw new TokenDecimalsMismatchError(this.network, this.tokenContract, this.config.expectedDecimals, decimals);
    this.decimals = decimals;
    this.chainId = chainId;
    this.payouts = new EvmPayouts({
      network: this.network,
      gasCoin: EVM_GAS_COIN[this.network],
      client: this.client,
      codec: this.config.codec,
      token,
      decimals,
      chainId,
      gasHeadroomPercent: this.config.gasHeadroomPercent,
    });
    const codec = this.config.codec;
    if (codec instanceof EvmCodec && codec.canSignDeposits()) {
      this.sweeps = new EvmSweeps({ network: this.network, gasCoin: EVM_GAS_COIN[this.network], client: this.client, codec, token, decimals, chainId, confirmations: this.config.confirmations });
    }
  }

  watch(options: WatchOptions): EvmWatch {
    if (this.chainId === null) throw new AdapterNotInitializedError(this.network);
    if (this.current && this.current.status().state !== 'stopped' && this.current.status().state !== 'failed') {
      throw new Error(`${this.network}: a watch is already running; stop it first`);
    }
    const source = new EvmBlockSource(this.client, { network: this.network, token: this.tokenContract.toLowerCase(), decimals: this.decimals, watched: evmMatcher(options.watched) });
    this.current = new BlockFollower({
      network: this.network,
      source,
      from: options.from ? readBlockCursor(this.network, options.from) : null,
      finalized: options.finalized ? readBlockCursor(this.network, options.finalized) : null,
      sink: options.sink,
      onError: options.onError,
      confirmations: this.config.confirmations,
      maxRange: this.config.maxBlockRange,
      rangeGrowth: this.config.rangeGrowth,
      pollIntervalMs: this.config.pollIntervalMs,
      backoff: this.config.backoff,
    });
    return this.current;
  }

  /** The tail-bitmap set its log filters read topics against (a miss allocates nothing). */
  newWatchedSet(): WatchedSet {
    return new EvmWatchedSet();
  }

  /** ChainAdapter.blockAt: the canonical block as a rescan cursor (null above the head). */
  async blockAt(height: number): Promise<ChainCursor | null> {
    try {
      const b = await this.client.getBlock({ blockNumber: BigInt(height) });
      return b.hash === null || b.number === null ? null : blockCursor({ height: Number(b.number), hash: b.hash });
    } catch (error) {
      if (error instanceof BlockNotFoundError) return null;
      throw classifyRpcError(error, 'eth_getBlockByNumber');
    }
  }

  /** ChainAdapter.confirmationsAt: block depth under the cursor; final at finalityDepth. */
  confirmationsAt(place: TransferPlace, cursor: ChainCursor): Confirmations {
    return blockDepth(place.blockHeight, this.cursorHeight(cursor), this.finalityDepth);
  }

  /** ChainAdapter.cursorHeight: the EVM cursor is { height, hash } of the last processed block. */
  cursorHeight(cursor: ChainCursor): number {
    return readBlockCursor(this.network, cursor).height;
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

  /** EIP-681 with the chain id the RPC serves (the real one on mainnet; 31337 on a hardhat node). */
  paymentLink(input: PaymentLinkInput): string {
    const chainId = this.chainId ?? NETWORK_FACTS[this.network].chainId;
    return this.config.codec.paymentLink({ ...input, tokenContract: this.tokenContract, tokenDecimals: this.decimals, chainId });
  }

  signPayout(request: PayoutRequest): Promise<SignedPayout> {
    return this.payout().sign(request);
  }

  payoutFunds(request: PayoutFundsRequest): Promise<PayoutFunds> {
    return this.payout().funds(request);
  }

  broadcastPayout(payout: SignedPayout): Promise<void> {
    return this.payout().broadcast(payout);
  }

  payoutStatus(payout: SignedPayout): Promise<PayoutStatus> {
    return this.payout().status(payout);
  }

  bumpPayout(payout: SignedPayout): Promise<SignedPayout> {
    return this.payout().bump(payout);
  }

  async close(): Promise<void> {
    await this.current?.stop();
    this.current = null;
  }

  private payout(): EvmPayouts {
    if (this.payouts === null) throw new AdapterNotInitializedError(this.network);
    return this.payouts;
  }

  private token(): Hex {
    return this.tokenContract as Hex;
  }
}

/** The live adapter of one EVM network; call init() before use. */
export function createEvmAdapter(config: EvmAdapterConfig): EvmAdapter {
  return new EvmAdapter(config);
}
