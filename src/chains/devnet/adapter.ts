import { ValidationError } from '../../domain/errors';
import type { Clock } from '../../domain/clock';
import { NETWORK_FACTS, type NetworkCode, type NetworkFacts } from '../../domain/networks';
import type { AddressCodec } from '../codec';
import type { ChainAdapter, ChainCursor, ChainWatch, DevnetControls, PaymentLinkInput, PayoutRequest, PayoutStatus, SignedPayout, WatchOptions } from '../types';
import { DevnetChain } from './chain';
import { randomTxHash } from './hashes';
import { DevnetJournal } from './journal';
import { decodeDevnetPayout, encodeDevnetPayout } from './payouts';
import { positiveAmount, validAddress } from './requests';
import type { DevnetTransfer, PendingTransfer } from './types';
import { DevnetWatch } from './watch';

export interface DevnetAdapterOptions {
  readonly network: NetworkCode;
  /** The family's real codec: devnet addresses, validation and links are the live ones. */
  readonly codec: AddressCodec;
  readonly clock: Clock;
  /** Persist the chain to `<storageDir>/<NETWORK>.jsonl`; in memory when absent. */
  readonly storageDir?: string;
  /** Mine an empty block this often once init() ran; 0 = only pay/mine/reorg make blocks. */
  readonly blockIntervalMs: number;
  /** Confirmations that make a block final (reorgs stop short of it). Default 20. */
  readonly finalityDepth?: number;
  /** Default: the real mainnet id from NETWORK_FACTS (on devnet it is just an id). */
  readonly tokenContract?: string;
  /** First retry delay after a sink failure (default 250 ms). */
  readonly retryDelayMs?: number;
  /** A timer-mined block failed (journal write); the timer keeps going. */
  readonly onError?: (error: Error) => void;
}

export const DEFAULT_DEVNET_FINALITY = 20;

/** The simulated chain of one network behind the ChainAdapter interface, plus its operator controls. */
export class DevnetAdapter implements ChainAdapter, DevnetControls {
  readonly mode = 'devnet' as const;
  readonly network: NetworkCode;
  readonly tokenContract: string;
  /** ChainAdapter.deriveDepositAddresses: the codec's range derivation, where it has one. */
  readonly deriveDepositAddresses?: (from: number, count: number) => string[];
  /** ChainAdapter.normalizeDerivedAddress: the codec's, where it has one. */
  readonly normalizeDerivedAddress?: (address: string) => string;
  readonly tokenDecimals: number;
  readonly finalityDepth: number;
  private readonly facts: NetworkFacts;
  private readonly chain: DevnetChain;
  private readonly journal: DevnetJournal | undefined;
  private readonly fakeContract: string;
  private sharedKey: string | undefined;
  private activeWatch: DevnetWatch | undefined;
  private timer: unknown;
  private closed = false;

  constructor(private readonly options: DevnetAdapterOptions) {
    this.network = options.network;
    this.facts = NETWORK_FACTS[options.network];
    this.tokenContract = options.tokenContract ?? this.facts.mainnetToken;
    this.tokenDecimals = this.facts.tokenDecimals;
    this.finalityDepth = options.finalityDepth ?? DEFAULT_DEVNET_FINALITY;
    if (!Number.isInteger(this.finalityDepth) || this.finalityDepth < 1) throw new RangeError('finalityDepth must be an integer >= 1');
    // A look-alike token: a valid contract id of the same format that is not USDT.
    this.fakeContract = options.codec.sampleAddress(`chainpay-devnet:${this.network}:fake-usdt`);
    this.deriveDepositAddresses = options.codec.deriveDepositAddresses?.bind(options.codec);
    this.normalizeDerivedAddress = options.codec.normalizeDerivedAddress?.bind(options.codec);
    const opened = options.storageDir ? DevnetJournal.open(options.storageDir, options.network) : undefined;
    this.journal = opened?.journal;
    this.chain = new DevnetChain({
      network: options.network,
      family: this.facts.family,
      clock: options.clock,
      finalityDepth: this.finalityDepth,
      journal: opened?.journal,
      replay: opened?.entries,
    });
  }

  /** Checks the key material can produce deposit addresses, then starts the block timer. */
  async init(): Promise<void> {
    if (this.facts.depositMode === 'master_memo') this.sharedKey = this.normalizeAddress(this.sharedDepositAddress());
    else this.deriveDepositAddress(0);
    if (this.options.blockIntervalMs > 0 && this.timer === undefined) this.scheduleBlock();
  }

  watch(options: WatchOptions): ChainWatch {
    if (this.activeWatch) throw new Error(`devnet ${this.network}: a watch is already running`);
    if (this.facts.depositMode === 'master_memo') this.sharedKey ??= this.normalizeAddress(this.sharedDepositAddress());
    const { watched } = options;
    const shared = this.sharedKey;
    // Filter exactly like a live adapter: only the configured token counts, then one Set lookup.
    const matches = (t: DevnetTransfer): boolean => t.contract === this.tokenContract && (t.toKey === shared || watched.has(t.toKey));
    const watch = new DevnetWatch({ ...options, network: this.network, chain: this.chain, matches, retryDelayMs: this.options.retryDelayMs, now: () => this.options.clock.now() });
    this.activeWatch = watch;
    return {
      head: () => watch.head(),
      syncedUntil: () => watch.syncedUntil(),
      stop: async () => {
        await watch.stop();
        if (this.activeWatch === watch) this.activeWatch = undefined;
      },
    };
  }

  deriveDepositAddress(index: number): string {
    return this.options.codec.deriveDepositAddress(index);
  }

  crossCheckDepositAddresses(from: number, count: number): Promise<string[]> {
    return this.options.codec.crossCheckDepositAddresses(from, count);
  }

  sharedDepositAddress(): string {
    return this.options.codec.sharedDepositAddress();
  }

  isValidAddress(address: string): boolean {
    return this.options.codec.isValidAddress(address);
  }

  normalizeAddress(address: string): string {
    return this.options.codec.normalizeAddress(address);
  }

  paymentLink(input: PaymentLinkInput): string {
    return this.options.codec.paymentLink({ ...input, tokenContract: this.tokenContract, tokenDecimals: this.tokenDecimals, chainId: this.facts.chainId });
  }

  async signPayout(request: PayoutRequest): Promise<SignedPayout> {
    const to = validAddress(this.options.codec, this.network, request.to, 'to');
    const amount = positiveAmount(request.amount, this.tokenDecimals);
    return encodeDevnetPayout(this.facts.family, { network: this.network, id: request.id, from: this.options.codec.hotWallet().address, to, amount });
  }

  /** Queues the payout for the next mined block; a second broadcast of the same hash is a no-op. */
  async broadcastPayout(payout: SignedPayout): Promise<void> {
    const body = decodeDevnetPayout(this.facts.family, this.network, payout);
    this.chain.submit(this.transfer(payout.txHash, body.from, body.to, body.amount, null, this.tokenContract));
  }

  async payoutStatus(payout: SignedPayout): Promise<PayoutStatus> {
    const location = this.chain.locate(payout.txHash);
    if (!location) return { state: 'unknown' };
    if (location.state === 'pending') return { state: 'pending' };
    return { state: 'mined', blockHeight: location.height, confirmations: this.chain.head().height - location.height + 1 };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.activeWatch?.stop();
    this.activeWatch = undefined;
    this.journal?.close();
  }

  // ---- DevnetControls ----

  /** A transfer in a new block, mined at once. `token: 'fake'` is on chain but never a payment. */
  async pay(input: { to: string; amount: string; memo?: string | null; token?: 'usdt' | 'fake'; from?: string }): Promise<{ txHash: string; blockHeight: number }> {
    const to = validAddress(this.options.codec, this.network, input.to, 'to');
    const from = input.from === undefined ? this.options.codec.sampleAddress(`chainpay-devnet:${this.network}:buyer`) : validAddress(this.options.codec, this.network, input.from, 'from');
    const amount = positiveAmount(input.amount, this.tokenDecimals);
    // Only TON transfers carry a text comment; other families have no memo on a token transfer.
    const memo = this.facts.family === 'ton' && input.memo ? input.memo : null; // '' is no comment
    const contract = input.token === 'fake' ? this.fakeContract : this.tokenContract;
    const txHash = randomTxHash(this.facts.family);
    const block = this.live().mine(1, [this.transfer(txHash, from, to, amount, memo, contract)]);
    return { txHash, blockHeight: block.height };
  }

  async mine(blocks: number): Promise<{ head: number; hash: string }> {
    if (!Number.isInteger(blocks) || blocks < 1 || blocks > 10_000) throw new ValidationError('invalid_blocks', 'blocks must be an integer from 1 to 10000', 'blocks');
    const head = this.live().mine(blocks);
    return { head: head.height, hash: head.hash };
  }

  async reorg(depth: number): Promise<{ head: number; hash: string }> {
    const head = this.live().reorg(depth);
    return { head: head.height, hash: head.hash };
  }

  head(): { head: number; hash: string } {
    const head = this.chain.head();
    return { head: head.height, hash: head.hash };
  }

  /** ChainAdapter.blockAt: the canonical block as a rescan cursor. */
  async blockAt(height: number): Promise<ChainCursor | null> {
    const block = this.chain.blockAt(height);
    return block ? { height: block.height, hash: block.hash } : null;
  }

  /** A canonical block (CLI inspection, tests). */
  block(height: number): { height: number; hash: string; parentHash: string; timestamp: Date; transfers: number } | undefined {
    const block = this.chain.blockAt(height);
    return block && { height: block.height, hash: block.hash, parentHash: block.parentHash, timestamp: new Date(block.timestamp), transfers: block.transfers.length };
  }

  private live(): DevnetChain {
    if (this.closed) throw new Error(`devnet ${this.network} is closed`);
    return this.chain;
  }

  private scheduleBlock(): void {
    this.timer = this.options.clock.setTimeout(() => {
      if (this.closed) return;
      try {
        this.chain.mine(1);
      } catch (error) {
        this.options.onError?.(error as Error);
      }
      this.scheduleBlock();
    }, this.options.blockIntervalMs);
  }

  private transfer(txHash: string, from: string, to: string, amount: string, memo: string | null, contract: string): PendingTransfer {
    return { txHash, from, to, toKey: this.normalizeAddress(to), amount, memo, contract };
  }
}
