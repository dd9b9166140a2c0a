import { ValidationError } from '../../domain/errors';
import { formatAmount, maxAmount, toDecimal } from '../../domain/decimal';
import type { Clock } from '../../domain/clock';
import { NETWORK_FACTS, type ChainFamily, type NetworkCode, type NetworkFacts } from '../../domain/networks';
import type { AddressCodec } from '../codec';
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
  DevnetControls,
  PaymentLinkInput,
  PayoutFunds,
  PayoutFundsRequest,
  PayoutRequest,
  PayoutStatus,
  SignedPayout,
  WatchedSet,
  WatchOptions,
} from '../types';
import { PlainWatchedSet } from '../watched-set';
import { DevnetBlockSource } from './block-source';
import { DevnetChain } from './chain';
import { randomTxHash } from './hashes';
import { assertNotMainnetToken, devnetChainId, devnetFakeTokenId, devnetTokenId } from './ids';
import { importLegacyJournal } from './legacy-journal';
import type { DevnetChainStore } from './store';
import { decodeDevnetPayout, DEVNET_PAYOUT_TTL_MS, DevnetPayoutExpiredError, encodeDevnetPayout } from './payouts';
import { positiveAmount, validAddress } from './requests';
import type { PendingTransfer } from './types';

export interface DevnetAdapterOptions {
  readonly network: NetworkCode;
  /** The family's real codec: devnet addresses, validation and links are the live ones. */
  readonly codec: AddressCodec;
  readonly clock: Clock;
  /**
   * Where the chain persists (the database in the daemon: a standby continues the same chain);
   * init() loads it. Absent: in memory only, usable without init().
   */
  readonly store?: DevnetChainStore;
  /** Canonical blocks kept in memory with a store (default 2048); older ones are read from it. */
  readonly memoryBlocks?: number;
  /**
   * The directory of an older version's journal (`<dir>/<NETWORK>.jsonl`): imported into the store
   * once, when the store has no chain for the network yet, then renamed `.jsonl.imported`.
   */
  readonly legacyJournalDir?: string;
  /** Mine an empty block this often once init() ran; 0 = only pay/mine/reorg make blocks. */
  readonly blockIntervalMs: number;
  /** Confirmations that make a block final (reorgs stop short of it). Default 20. */
  readonly finalityDepth?: number;
  /** Default: the network's devnet USDT id (ids.ts); a mainnet USDT id is refused. */
  readonly tokenContract?: string;
  /** First retry delay after a sink failure (default 250 ms). */
  readonly retryDelayMs?: number;
  /** Structured logs (a pino logger fits): a timer block that failed, a journal imported. */
  readonly logger?: DevnetLogger;
  /**
   * How long a signed payout stays valid on the devnet clock. Default: the family's
   * (DEVNET_PAYOUT_TTL_MS: 60 s on TRC20, TON, SOLANA; none on EVM networks, whose nonces never expire).
   */
  readonly payoutTtlMs?: number;
  /**
   * DEVNET_HOT_WALLET_USDT: the USDT the hot wallet starts with; its balance is that plus what was
   * sent to it minus what it paid, in canonical blocks. Absent or null: it never runs short.
   */
  readonly hotWalletUsdt?: string | null;
}

export interface DevnetLogger {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

export const DEFAULT_DEVNET_FINALITY = 20;
/**
 * The follower's poll while idle: the chain's changes wake it at once; the poll pushes the chain
 * time it vouches for as time passes (onSynced), so invoices past expires_at learn it this often.
 */
const POLL_INTERVAL_MS = 250;
/** Families whose chains reorganise; the others' devnet refuses reorg (issue 33: each family's rules). */
const REORG_FAMILIES: ReadonlySet<ChainFamily> = new Set(['evm', 'tron']);

/** A running devnet watch: the follower's status, and its vouched chain time. */
export interface DevnetWatch extends ChainWatch {
  syncedUntil(): Date | null;
  status(): SyncStatus;
}

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
  /** Set by the constructor (in memory) or by init() (stored). */
  private opened: DevnetChain | undefined;
  private readonly fakeContract: string;
  private sharedKey: string | undefined;
  private activeWatch: DevnetWatch | undefined;
  private timer: unknown;
  private closed = false;

  constructor(private readonly options: DevnetAdapterOptions) {
    this.network = options.network;
    this.facts = NETWORK_FACTS[options.network];
    // Never the mainnet USDT id: a real wallet could then pay a devnet link with real money.
    this.tokenContract = options.tokenContract ?? devnetTokenId(options.network, options.codec);
    assertNotMainnetToken(options.network, this.tokenContract, options.codec);
    this.tokenDecimals = this.facts.tokenDecimals;
    this.finalityDepth = options.finalityDepth ?? DEFAULT_DEVNET_FINALITY;
    if (!Number.isInteger(this.finalityDepth) || this.finalityDepth < 1) throw new RangeError('finalityDepth must be an integer >= 1');
    // A look-alike token: a valid contract id of the same format that is not USDT.
    this.fakeContract = devnetFakeTokenId(options.network, options.codec);
    this.deriveDepositAddresses = options.codec.deriveDepositAddresses?.bind(options.codec);
    this.normalizeDerivedAddress = options.codec.normalizeDerivedAddress?.bind(options.codec);
    if (!options.store) this.opened = DevnetChain.memory(this.chainOptions());
  }

  /**
   * Checks the key material can produce deposit addresses, loads the stored chain (creating it, or
   * importing an older version's journal, on first use), then starts the block timer.
   */
  async init(): Promise<void> {
    if (this.facts.depositMode === 'master_memo') this.sharedKey = this.normalizeAddress(this.sharedDepositAddress());
    else this.deriveDepositAddress(0);
    const { store } = this.options;
    if (store && !this.opened) {
      if (this.options.legacyJournalDir) {
        const imported = await importLegacyJournal({ store, network: this.network, dir: this.options.legacyJournalDir });
        if (imported) this.options.logger?.info({ network: this.network, ...imported }, 'devnet journal of an older version imported into the database');
      }
      this.opened = await DevnetChain.open({ ...this.chainOptions(), store, memoryBlocks: this.options.memoryBlocks });
    }
    if (this.options.blockIntervalMs > 0 && this.timer === undefined) this.scheduleBlock();
  }

  /**
   * The block follower of the live families over this chain (DevnetBlockSource): the same reorg,
   * finality and catch-up code. An idle follower wakes at the chain's next change, not its poll.
   */
  watch(options: WatchOptions): DevnetWatch {
    if (this.activeWatch) throw new Error(`devnet ${this.network}: a watch is already running`);
    if (this.facts.depositMode === 'master_memo') this.sharedKey ??= this.normalizeAddress(this.sharedDepositAddress());
    const chain = this.chain();
    const source = new DevnetBlockSource({ network: this.network, chain, tokenContract: this.tokenContract, sharedKey: this.sharedKey ?? null, watched: options.watched, clock: this.options.clock });
    const follower = new BlockFollower({
      network: this.network,
      source,
      from: options.from ? readBlockCursor(this.network, options.from) : null,
      finalized: options.finalized ? readBlockCursor(this.network, options.finalized) : null,
      sink: options.sink,
      onError: options.onError,
      onSynced: options.onSynced,
      confirmations: this.finalityDepth,
      pollIntervalMs: POLL_INTERVAL_MS,
      backoff: { initialMs: this.options.retryDelayMs ?? 250, maxMs: 10_000 },
    });
    const watch: DevnetWatch = {
      // The chain's own head, exact at any time (lag, waitCaughtUp).
      head: () => chain.head().height,
      syncedUntil: () => follower.syncedUntil(),
      status: () => follower.status(),
      loopStats: () => follower.loopStats(),
      stop: async () => {
        await follower.stop();
        source.close();
        if (this.activeWatch === watch) this.activeWatch = undefined;
      },
    };
    this.activeWatch = watch;
    return watch;
  }

  /** An address set of plain lookups: the devnet matches each transfer's normalized recipient. */
  newWatchedSet(): WatchedSet {
    return new PlainWatchedSet();
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
    return this.options.codec.paymentLink({ ...input, tokenContract: this.tokenContract, tokenDecimals: this.tokenDecimals, chainId: devnetChainId(this.network) });
  }

  /**
   * The payout contract as the network's family has it: EVM networks sign without expiry; TRC20,
   * TON and SOLANA payouts are valid until chain time now + payoutTtlMs (their expiration /
   * valid_until / lastValidBlockHeight), and a new attempt is a new transaction.
   */
  async signPayout(request: PayoutRequest): Promise<SignedPayout> {
    const to = validAddress(this.options.codec, this.network, request.to, 'to');
    const amount = positiveAmount(request.amount, this.tokenDecimals);
    const ttl = this.options.payoutTtlMs ?? DEVNET_PAYOUT_TTL_MS[this.facts.family];
    const validUntilMs = ttl === undefined ? undefined : this.chainTime() + ttl;
    const from = this.options.codec.hotWallet().address;
    // Only TON transfers carry a text comment (as pay() has it).
    const memo = this.facts.family === 'ton' && request.comment ? { memo: request.comment } : {};
    return encodeDevnetPayout(this.facts.family, {
      network: this.network,
      id: request.id,
      from,
      to,
      amount,
      attempt: request.attempt ?? 0,
      ...(validUntilMs !== undefined ? { validUntilMs } : {}),
      ...memo,
    });
  }

  /**
   * ChainAdapter.payoutFunds on the simulated chain: USDT only (devnet has no gas coin). The hot
   * wallet holds DEVNET_HOT_WALLET_USDT plus what canonical blocks sent to it minus what it paid;
   * the payouts in flight (signed, not mined) come off that. Unset: never short.
   */
  async payoutFunds(request: PayoutFundsRequest): Promise<PayoutFunds> {
    const wallet = this.options.codec.hotWallet().address;
    const float = this.options.hotWalletUsdt;
    if (float === undefined || float === null) return { wallet, shortfalls: [] };
    const flow = await this.chain().tokenFlow({ from: wallet, toKey: this.options.codec.normalizeAddress(wallet), contract: this.tokenContract });
    const balance = toDecimal(float).plus(flow.received).minus(flow.sent);
    const needed = toDecimal(request.amount).plus(request.inFlight.amount);
    if (balance.gte(needed)) return { wallet, shortfalls: [] };
    return { wallet, shortfalls: [{ kind: 'token', asset: 'USDT', balance: formatAmount(maxAmount(balance, '0')), needed: formatAmount(needed) }] };
  }

  /** Queues the payout for the next mined block; a second broadcast of the same hash is a no-op; too late: DevnetPayoutExpiredError. */
  async broadcastPayout(payout: SignedPayout): Promise<void> {
    const body = decodeDevnetPayout(this.facts.family, this.network, payout);
    const now = this.chainTime();
    if (body.validUntilMs !== undefined && now > body.validUntilMs && !(await this.chain().locate(payout.txHash))) {
      throw new DevnetPayoutExpiredError(this.network, payout.txHash, body.validUntilMs, now);
    }
    await this.live().submit({ ...this.transfer(payout.txHash, body.from, body.to, body.amount, body.memo ?? null, this.tokenContract), validUntilMs: body.validUntilMs ?? null });
  }

  /**
   * `expired` only when no block can ever include it: its validity ended before the timestamp of a
   * final block (one that cannot be reorged away; every later block is stamped no earlier) and no
   * canonical block holds it. A mined payout is `mined`, whatever its validity.
   */
  async payoutStatus(payout: SignedPayout): Promise<PayoutStatus> {
    const chain = this.chain();
    const location = await chain.locate(payout.txHash);
    if (location?.state === 'mined') return { state: 'mined', blockHeight: location.height, confirmations: chain.head().height - location.height + 1 };
    // The validity as signed (meta mirrors the body; the host stores both and hands them back as they were).
    const validUntilMs = payout.meta.validUntilMs === undefined ? undefined : Number(payout.meta.validUntilMs);
    if (validUntilMs !== undefined && (await this.finalBlockTime()) > validUntilMs) return { state: 'expired' };
    return location ? { state: 'pending' } : { state: 'unknown' };
  }

  /** Stops the timer and the watch, then waits for the chain's writes in flight (before the database closes). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.activeWatch?.stop();
    this.activeWatch = undefined;
    await this.opened?.drain();
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
    const block = await this.live().mine(1, [this.transfer(txHash, from, to, amount, memo, contract)]);
    return { txHash, blockHeight: block.height };
  }

  async mine(blocks: number): Promise<{ head: number; hash: string }> {
    if (!Number.isInteger(blocks) || blocks < 1 || blocks > 10_000) throw new ValidationError('invalid_blocks', 'blocks must be an integer from 1 to 10000', 'blocks');
    const head = await this.live().mine(blocks);
    return { head: head.height, hash: head.hash };
  }

  /** Refused on families whose chains do not reorganise (TON, SOLANA: a final block per step). */
  async reorg(depth: number): Promise<{ head: number; hash: string }> {
    if (!REORG_FAMILIES.has(this.facts.family)) {
      throw new ValidationError('reorg_unsupported', `${this.network} does not reorganise: its chain family (${this.facts.family}) has no reorgs, so its devnet has none either`, 'network', {
        family: this.facts.family,
      });
    }
    const head = await this.live().reorg(depth);
    return { head: head.height, hash: head.hash };
  }

  head(): { head: number; hash: string } {
    const head = this.chain().head();
    return { head: head.height, hash: head.hash };
  }

  /** ChainAdapter.blockAt: the canonical block as a rescan cursor. */
  async blockAt(height: number): Promise<ChainCursor | null> {
    const block = await this.chain().blockAt(height);
    return block ? blockCursor(block) : null;
  }

  /** ChainAdapter.confirmationsAt: block depth under the cursor; final at finalityDepth. */
  confirmationsAt(place: TransferPlace, cursor: ChainCursor): Confirmations {
    return blockDepth(place.blockHeight, this.cursorHeight(cursor), this.finalityDepth);
  }

  /** ChainAdapter.cursorHeight: the devnet's cursor is the block families' { height, hash }. */
  cursorHeight(cursor: ChainCursor): number {
    return readBlockCursor(this.network, cursor).height;
  }

  /** A canonical block (CLI inspection, tests). */
  async block(height: number): Promise<{ height: number; hash: string; parentHash: string; timestamp: Date; transfers: number } | undefined> {
    const block = await this.chain().blockAt(height);
    return block && { height: block.height, hash: block.hash, parentHash: block.parentHash, timestamp: new Date(block.timestamp), transfers: block.transfers.length };
  }

  /** Chain time for a new transaction: the next block is stamped no earlier than this. */
  private chainTime(): number {
    return Math.max(this.chain().head().timestamp, this.options.clock.now().getTime());
  }

  /** The timestamp of the newest block no reorg can remove (the head on families without reorgs). */
  private async finalBlockTime(): Promise<number> {
    const head = this.chain().head();
    if (!REORG_FAMILIES.has(this.facts.family)) return head.timestamp;
    const final = head.height - this.finalityDepth + 1;
    return final < 0 ? Number.NEGATIVE_INFINITY : ((await this.chain().blockAt(final))?.timestamp ?? Number.NEGATIVE_INFINITY);
  }

  private chain(): DevnetChain {
    if (!this.opened) throw new Error(`devnet ${this.network}: init() loads the stored chain first`);
    return this.opened;
  }

  private live(): DevnetChain {
    if (this.closed) throw new Error(`devnet ${this.network} is closed`);
    return this.chain();
  }

  private chainOptions(): { network: NetworkCode; family: NetworkFacts['family']; clock: Clock; finalityDepth: number } {
    return { network: this.network, family: this.facts.family, clock: this.options.clock, finalityDepth: this.finalityDepth };
  }

  /** The next empty block is timed from the end of the last one's write (never two in flight). */
  private scheduleBlock(): void {
    this.timer = this.options.clock.setTimeout(() => {
      if (this.closed) return;
      this.chain()
        .mine(1)
        .catch((error: unknown) => this.options.logger?.error({ err: error, network: this.network }, 'devnet block could not be written; the next one is tried on time'))
        .finally(() => {
          if (!this.closed) this.scheduleBlock();
        });
    }, this.options.blockIntervalMs);
  }

  private transfer(txHash: string, from: string, to: string, amount: string, memo: string | null, contract: string): PendingTransfer {
    return { txHash, from, to, toKey: this.normalizeAddress(to), amount, memo, contract };
  }
}
