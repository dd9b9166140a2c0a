import { Address, beginCell } from '@ton/core';
import { NETWORK_FACTS, type NetworkCode } from '../../domain/networks';
import { PlainWatchedSet } from '../watched-set';
import type {
  ChainAdapter,
  ChainCursor,
  ChainWatch,
  Confirmations,
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
import { TonRpc } from './client';
import type { TonCodec } from './codec';
import { type TonLiveOptions, tonRpsDefault } from './config';
import { decodeCursor, tonConfirmations } from './cursor';
import { TonDepositWatch } from './deposit-watch';
import { JettonMasterUnansweredError, TonConfigError, TonNotInitializedError } from './errors';
import { TonPayouts } from './payouts';
import { tonPayoutFunds } from './payout-funds';
import { checkJettonDecimals } from './token-check';
import { jettonWalletRefusal } from './payee-check';

const DEFAULT_PAGE_SIZE = 100;
const DEFAULT_PAYOUT_TTL_SECONDS = 120;

export interface TonAdapterInput extends TonLiveOptions {
  readonly network: NetworkCode;
  readonly codec: TonCodec;
  readonly onRpc?: RpcObserver;
}

/**
 * Live TON (USDT jetton, master_memo): one service wallet (wallet v4r2 from the HD seed, the codec's
 * derivation) is every invoice's deposit address; deposits are read from our jetton wallet on the
 * configured master; payouts are jetton transfers ordered by the service wallet.
 */
export class TonAdapter implements ChainAdapter {
  readonly mode = 'live' as const;
  readonly network: NetworkCode;
  readonly tokenContract: string;
  readonly tokenDecimals: number;
  private readonly rpc: TonRpc;
  private readonly master: Address;
  private jettonWallet: Address | null = null;
  private payouts: TonPayouts | null = null;
  private current: TonDepositWatch | null = null;

  constructor(private readonly input: TonAdapterInput) {
    this.network = input.network;
    this.tokenDecimals = NETWORK_FACTS[input.network].tokenDecimals;
    try {
      this.master = Address.parse(input.jettonMaster);
    } catch {
      throw new TonConfigError('TON_JETTON_MASTER', `not a TON address: ${input.jettonMaster}`);
    }
    this.tokenContract = this.master.toString({ bounceable: true, urlSafe: true });
    // A state read serves every reader for up to a second, never across two polls of the deposit watch.
    const limits = { rps: input.rps ?? tonRpsDefault(input.apiKey), stateFreshMs: Math.min(1000, input.pollIntervalMs) };
    this.rpc = new TonRpc(input.network, input.rpcUrl, input.apiKey, limits, input.onRpc);
  }

  /** TON is final once in a masterchain block: nothing is ever reorged away. */
  readonly finalityDepth = 1;

  /** ChainAdapter.cursorHeight: the masterchain seqno of TON's { seqno, lt, hash } cursor. */
  cursorHeight(cursor: ChainCursor): number {
    return decodeCursor(this.network, cursor).seqno;
  }

  /** ChainAdapter.confirmationsAt: masterchain blocks since the one that showed the transfer; final from the first. */
  confirmationsAt(place: TransferPlace, cursor: ChainCursor): Confirmations {
    return tonConfirmations(place.blockHeight, this.cursorHeight(cursor));
  }

  /**
   * Our jetton wallet = get_wallet_address(service wallet) on the master; refuses to start when the
   * master does not answer, or when its decimals are not USDT's (TonJettonDecimalsError, exit 78).
   */
  async init(): Promise<void> {
    const service = this.input.codec.serviceWallet();
    const owner = Address.parse(service.address);
    let jettonWallet: Address;
    try {
      const stack = await this.rpc.get(this.master, 'get_wallet_address', [{ type: 'slice', cell: beginCell().storeAddress(owner).endCell() }]);
      jettonWallet = stack.readAddress();
    } catch (error) {
      throw new JettonMasterUnansweredError(this.tokenContract, error);
    }
    await checkJettonDecimals(this.rpc, this.network, this.master, this.tokenContract, this.tokenDecimals);
    this.jettonWallet = jettonWallet;
    this.payouts = new TonPayouts({
      network: this.network,
      rpc: this.rpc,
      serviceSeed: Buffer.from(service.privateKeyHex, 'hex'),
      jettonWallet,
      decimals: this.tokenDecimals,
      ttlSeconds: this.input.payoutTtlSeconds ?? DEFAULT_PAYOUT_TTL_SECONDS,
      pageSize: this.input.pageSize ?? DEFAULT_PAGE_SIZE,
    });
  }

  /** Our jetton wallet (after init): the anchor of every deposit and payout check. */
  ourJettonWallet(): string {
    return this.requireJettonWallet().toString({ bounceable: true, urlSafe: true });
  }

  watch(options: WatchOptions): ChainWatch {
    const jettonWallet = this.requireJettonWallet();
    if (this.current !== null) throw new Error(`${this.network}: a watch is already running; stop it first`);
    const watch = new TonDepositWatch({
      network: this.network,
      rpc: this.rpc,
      jettonWallet,
      serviceWallet: this.normalizeAddress(this.sharedDepositAddress()),
      decimals: this.tokenDecimals,
      pageSize: this.input.pageSize ?? DEFAULT_PAGE_SIZE,
      pollIntervalMs: this.input.pollIntervalMs,
      from: options.from,
      sink: options.sink,
      onError: options.onError,
    });
    this.current = watch;
    // status(): its consecutive failures, read by the watcher for its health (rpcHealthy).
    const handle: ChainWatch & { status(): { consecutiveFailures: number } } = {
      head: () => watch.head(),
      status: () => watch.status(),
      loopStats: () => watch.loopStats(),
      stop: async () => {
        await watch.stop();
        if (this.current === watch) this.current = null;
      },
    };
    return handle;
  }

  newWatchedSet(): WatchedSet {
    return new PlainWatchedSet();
  }

  deriveDepositAddress(index: number): string {
    return this.input.codec.deriveDepositAddress(index);
  }

  crossCheckDepositAddresses(from: number, count: number): Promise<string[]> {
    return this.input.codec.crossCheckDepositAddresses(from, count);
  }

  sharedDepositAddress(): string {
    return this.input.codec.sharedDepositAddress();
  }

  isValidAddress(address: string): boolean {
    return this.input.codec.isValidAddress(address);
  }

  normalizeAddress(address: string): string {
    return this.input.codec.normalizeAddress(address);
  }

  /** ton://transfer/<service wallet>?jetton=<master>&amount=<base units>&text=<memo>. */
  paymentLink(input: PaymentLinkInput): string {
    return this.input.codec.paymentLink({ ...input, tokenContract: this.tokenContract, tokenDecimals: this.tokenDecimals });
  }

  /** ChainAdapter.payeeAccountRefusal: a jetton wallet is no payee (its owner is named instead). */
  payeeAccountRefusal(address: string): Promise<{ code: string; message: string } | null> {
    return jettonWalletRefusal(this.rpc, address);
  }

  signPayout(request: PayoutRequest): Promise<SignedPayout> {
    return this.payout().sign(request);
  }

  payoutFunds(request: PayoutFundsRequest): Promise<PayoutFunds> {
    const deps = { rpc: this.rpc, serviceWallet: this.sharedDepositAddress(), jettonWallet: this.requireJettonWallet(), decimals: this.tokenDecimals };
    return tonPayoutFunds(deps, request);
  }

  broadcastPayout(payout: SignedPayout): Promise<void> {
    return this.payout().broadcast(payout);
  }

  payoutStatus(payout: SignedPayout): Promise<PayoutStatus> {
    return this.payout().status(payout);
  }

  async close(): Promise<void> {
    await this.current?.stop();
    this.current = null;
  }

  private requireJettonWallet(): Address {
    if (this.jettonWallet === null) throw new TonNotInitializedError();
    return this.jettonWallet;
  }

  private payout(): TonPayouts {
    if (this.payouts === null) throw new TonNotInitializedError();
    return this.payouts;
  }
}
