import type { Address, Cell, TupleItem, TupleReader, Transaction } from '@ton/core';
import { TonClient } from '@ton/ton';
import type { NetworkCode } from '../../domain/networks';
import { backoffDelay } from '../sync/backoff';
import type { RpcObserver } from '../types';
import { CallBudget } from './call-budget';
import { httpStatusOf, retryable, transientError } from './provider-errors';

/** Attempts of one call on a transient failure (429, 5xx, no answer) before it is reported. */
export const TON_CALL_ATTEMPTS = 4;
const RETRY_INITIAL_MS = 250;
const RETRY_MAX_MS = 4000;

export interface TonRpcLimits {
  /** TON_RPS: calls started per second at most (the provider's budget). */
  readonly rps: number;
  /**
   * How long one account state stays the answer for every reader: the deposit watch and each
   * pending payout's status check read our jetton wallet, and within this time (and while a read
   * is in flight or queued on the budget) they share one call instead of one each.
   */
  readonly stateFreshMs: number;
}

/** Our view of an account at one masterchain block (one getAddressInformation call). */
export interface AccountState {
  /** The masterchain block the state was read at. */
  readonly seqno: number;
  /** Its last transaction; null for an account that never had one. */
  readonly last: { readonly lt: bigint; readonly hash: Buffer } | null;
  /** nanoton */
  readonly balance: bigint;
  /** Chain time of that block (unix seconds). */
  readonly utime: number;
  readonly active: boolean;
}

/**
 * The toncenter v2 calls the adapter makes, through TonClient (its parsing included), each timed
 * for metrics. Nothing else of the adapter talks to the network. Every call takes its turn on the
 * provider's budget (CallBudget, TON_RPS) and is made again with backoff on a transient failure;
 * once the attempts are spent it is reported as TonRateLimitedError / TonProviderUnavailableError.
 */
export class TonRpc {
  private readonly client: TonClient;
  private readonly budget: CallBudget;
  /** Account state reads shared by every reader (see TonRpcLimits.stateFreshMs), by raw address. */
  private readonly states = new Map<string, { readonly at: number; readonly read: Promise<AccountState> }>();

  constructor(
    private readonly network: NetworkCode,
    endpoint: string,
    apiKey: string | undefined,
    private readonly limits: TonRpcLimits,
    private readonly onRpc?: RpcObserver,
  ) {
    this.client = new TonClient({ endpoint, ...(apiKey ? { apiKey } : {}), timeout: 15_000 });
    this.budget = new CallBudget(limits.rps);
  }

  /**
   * The account's state, possibly as read up to stateFreshMs ago for another reader (or still being
   * read for one). Readers rely only on what a state says about its own masterchain block: an older
   * one is "no news yet", never a wrong answer.
   */
  state(address: Address): Promise<AccountState> {
    const key = address.toRawString();
    const shared = this.states.get(key);
    if (shared !== undefined && Date.now() - shared.at < this.limits.stateFreshMs) return shared.read;
    const read = this.readState(address);
    // Fresh from when the answer came, so readers queued on the budget meanwhile share it too.
    const entry = { at: Number.POSITIVE_INFINITY, read };
    this.states.set(key, entry);
    read.then(
      () => {
        if (this.states.get(key) === entry) this.states.set(key, { at: Date.now(), read });
      },
      () => {
        if (this.states.get(key) === entry) this.states.delete(key);
      },
    );
    return read;
  }

  private async readState(address: Address): Promise<AccountState> {
    const s = await this.timed('getAddressInformation', () => this.client.getContractState(address));
    return {
      seqno: s.blockId.seqno,
      last: s.lastTransaction ? { lt: BigInt(s.lastTransaction.lt), hash: Buffer.from(s.lastTransaction.hash, 'base64') } : null,
      balance: s.balance,
      utime: s.timestampt,
      active: s.state === 'active',
    };
  }

  /**
   * Up to `limit` transactions of `address`, newest first, starting at (lt, hash) inclusive and
   * stopping above `toLt` (the node may also return the one at `toLt`: callers stop there themselves).
   */
  transactions(address: Address, from: { lt: bigint; hash: Buffer }, limit: number, toLt = 0n): Promise<Transaction[]> {
    return this.timed('getTransactions', () =>
      this.client.getTransactions(address, { limit, lt: from.lt.toString(), hash: from.hash.toString('base64'), ...(toLt > 0n ? { to_lt: toLt.toString() } : {}), inclusive: true, archival: true }),
    );
  }

  /** A get method; throws when it exits non-zero. */
  async get(address: Address, method: string, stack: TupleItem[] = []): Promise<TupleReader> {
    const res = await this.timed('runGetMethod', () => this.client.runMethod(address, method, stack));
    return res.stack;
  }

  /** A get method's exit code and stack, without throwing on a non-zero exit (an account without that method). */
  async tryGet(address: Address, method: string): Promise<{ exitCode: number; stack: TupleReader }> {
    const res = await this.timed('runGetMethod', () => this.client.runMethodWithError(address, method));
    return { exitCode: res.exit_code, stack: res.stack };
  }

  sendBoc(boc: Buffer): Promise<void> {
    return this.timed('sendBoc', () => this.client.sendFile(boc));
  }

  /** One call within the budget, made again on a transient failure (provider-errors.ts retryable). */
  private async timed<T>(method: string, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const done = await this.budget.take();
      const started = Date.now();
      try {
        const out = await fn();
        done();
        this.onRpc?.({ network: this.network, method, ms: Date.now() - started, ok: true });
        return out;
      } catch (error) {
        done();
        this.onRpc?.({ network: this.network, method, ms: Date.now() - started, ok: false });
        const status = httpStatusOf(error);
        if (status === undefined || !retryable(method, status)) throw error;
        if (attempt >= TON_CALL_ATTEMPTS) throw transientError(method, attempt, status, error);
        await new Promise((resolve) => setTimeout(resolve, backoffDelay(attempt, RETRY_INITIAL_MS, RETRY_MAX_MS)));
      }
    }
  }
}

export type { Cell };
