import type { Address, Cell, TupleItem, TupleReader, Transaction } from '@ton/core';
import { TonClient } from '@ton/ton';
import type { NetworkCode } from '../../domain/networks';
import type { RpcObserver } from '../types';

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
 * for metrics. Nothing else of the adapter talks to the network.
 */
export class TonRpc {
  private readonly client: TonClient;

  constructor(
    private readonly network: NetworkCode,
    endpoint: string,
    apiKey: string | undefined,
    private readonly onRpc?: RpcObserver,
  ) {
    this.client = new TonClient({ endpoint, ...(apiKey ? { apiKey } : {}), timeout: 15_000 });
  }

  async state(address: Address): Promise<AccountState> {
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

  private async timed<T>(method: string, fn: () => Promise<T>): Promise<T> {
    const started = Date.now();
    try {
      const out = await fn();
      this.onRpc?.({ network: this.network, method, ms: Date.now() - started, ok: true });
      return out;
    } catch (error) {
      this.onRpc?.({ network: this.network, method, ms: Date.now() - started, ok: false });
      throw error;
    }
  }
}

export type { Cell };
