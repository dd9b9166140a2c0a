import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { address } from '@solana/kit';
import { VersionedTransaction } from '@solana/web3.js';
import { base58 } from '@scure/base';
import type { MainnetPadding } from './mainnet-padding';
import { RpcFault, type Commitment, type SvmChain } from './svm-chain';

type Params = unknown[];
type Handler = (params: Params) => unknown;

/** An answer already serialized (a padded block is spliced as text, not built as objects). */
class RawJson {
  constructor(readonly text: string) {}
}

/** Faults a test injects: each slot in a set answers its error once for getBlock, then is served. */
export interface RpcFaults {
  /** -32004 "Block not available for slot": the node has not got it yet. */
  readonly notAvailable: Set<number>;
  /** -32009 "missing in long-term storage": answered while the slot is in the set. */
  readonly missingFromStorage: Set<number>;
  /** -32007 "skipped" answered for a slot that does hold a block (a node that lost it). */
  readonly skippedLie: Set<number>;
  /**
   * A load-balanced provider: each getBlock lands on one of its nodes, and with this chance on one
   * that lacks the block (started from a later snapshot) and answers -32007 for a slot the node
   * that served getBlocks listed. `random` is seeded by the test so a run repeats. null: off.
   */
  lacksBlock: { readonly chance: number; readonly random: () => number } | null;
}

/**
 * Solana JSON-RPC over an SvmChain, in agave's JSON shapes, so an unchanged @solana/web3.js
 * Connection talks to it. Counts every call by method (the RPC cost tests read `calls`).
 */
export class SolanaRpcServer {
  readonly calls = new Map<string, number>();
  readonly faults: RpcFaults = { notAvailable: new Set(), missingFromStorage: new Set(), skippedLie: new Set(), lacksBlock: null };
  prioritizationFees: { slot: number; prioritizationFee: number }[] = [
    { slot: 1, prioritizationFee: 0 },
    { slot: 2, prioritizationFee: 1000 },
    { slot: 3, prioritizationFee: 5000 },
  ];
  /** When set, sendTransaction answers the signature and drops the transaction (a leader that never got it). */
  dropSends = false;
  /** The signature of every transaction sendTransaction was asked to send, in order (repeats included). */
  readonly sent: string[] = [];
  /**
   * Routes of a load-balanced provider (test/solana/support/*-node.ts): each is asked first, in
   * order; one that answers `{ result }` serves the call (another backend answered), undefined
   * passes it on (it may only look at it).
   */
  readonly routes: ((method: string, params: Params) => { result: unknown } | undefined)[] = [];
  /** When set, every getBlock answer carries this padding (mainnet-sized blocks: votes, strangers' transfers) before the block's own transactions. */
  padding: MainnetPadding | null = null;
  private server: http.Server | null = null;
  private readonly handlers: Record<string, Handler>;

  constructor(readonly chain: SvmChain) {
    this.handlers = {
      getSlot: (p) => chain.at(commitmentOf(p[0])).slot,
      getBlockHeight: (p) => chain.at(commitmentOf(p[0])).blockHeight,
      getEpochInfo: (p) => {
        const b = chain.at(commitmentOf(p[0]));
        return { absoluteSlot: b.slot, blockHeight: b.blockHeight, epoch: Math.floor(b.slot / 432_000), slotIndex: b.slot % 432_000, slotsInEpoch: 432_000, transactionCount: chain.statuses.size };
      },
      getBlocks: (p) => this.getBlocks(p),
      getBlock: (p) => this.getBlock(p),
      getLatestBlockhash: (p) => {
        const b = chain.at(commitmentOf(p[0]));
        return this.withContext({ blockhash: b.blockhash, lastValidBlockHeight: b.blockHeight + 150 });
      },
      sendTransaction: (p) => {
        const cfg = (p[1] ?? {}) as { encoding?: string; skipPreflight?: boolean };
        const wire = Buffer.from(String(p[0]), 'base64');
        this.sent.push(base58.encode(VersionedTransaction.deserialize(wire).signatures[0]!));
        if (this.dropSends) return base58.encode(VersionedTransaction.deserialize(wire).signatures[0]!); // accepted, never forwarded
        return chain.submit(wire, cfg.skipPreflight === true);
      },
      getSignatureStatuses: (p) => this.withContext((p[0] as string[]).map((s) => this.signatureStatus(s))),
      getAccountInfo: (p) => this.withContext(this.accountInfo(String(p[0]))),
      getBalance: (p) => this.withContext(Number(chain.svm.getBalance(address(String(p[0]))) ?? 0n)),
      getMinimumBalanceForRentExemption: (p) => Number(chain.svm.minimumBalanceForRentExemption(BigInt(Number(p[0])))),
      getRecentPrioritizationFees: () => this.prioritizationFees,
      getGenesisHash: () => chain.blocks.get(0)!.blockhash,
      getVersion: () => ({ 'solana-core': '2.1.0-litesvm', 'feature-set': 0 }),
    };
  }

  get url(): string {
    const a = this.server?.address() as AddressInfo | undefined;
    if (!a) throw new Error('not listening');
    return `http://127.0.0.1:${a.port}`;
  }

  count(method: string): number {
    return this.calls.get(method) ?? 0;
  }

  resetCounts(): void {
    this.calls.clear();
  }

  async listen(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return this.reply(res, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
        }
        const answer = Array.isArray(body) ? body.map((r) => this.call(r)) : this.call(body);
        this.reply(res, answer);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }

  private reply(res: http.ServerResponse, answer: unknown): void {
    const text = (a: unknown): string => (a instanceof RawJson ? a.text : JSON.stringify(a));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(Array.isArray(answer) ? `[${answer.map(text).join(',')}]` : text(answer));
  }

  private call(request: unknown): unknown {
    const { id, method, params } = request as { id: unknown; method: string; params?: Params };
    this.calls.set(method, (this.calls.get(method) ?? 0) + 1);
    try {
      for (const route of this.routes) {
        const routed = route(method, params ?? []);
        if (routed) return { jsonrpc: '2.0', id, result: routed.result };
      }
    } catch (error) {
      if (error instanceof RpcFault) return { jsonrpc: '2.0', id, error: { code: error.code, message: error.message } };
      throw error;
    }
    const handler = this.handlers[method];
    if (!handler) return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } };
    try {
      const result = handler(params ?? []);
      if (result instanceof RawJson) return new RawJson(`{"jsonrpc":"2.0","id":${JSON.stringify(id ?? null)},"result":${result.text}}`);
      return { jsonrpc: '2.0', id, result };
    } catch (error) {
      if (error instanceof RpcFault) return { jsonrpc: '2.0', id, error: { code: error.code, message: error.message } };
      return { jsonrpc: '2.0', id, error: { code: -32603, message: error instanceof Error ? error.message : String(error) } };
    }
  }

  private withContext<T>(value: T): { context: { slot: number; apiVersion: string }; value: T } {
    return { context: { slot: this.chain.tip().slot, apiVersion: '2.1.0' }, value };
  }

  /** Produced slots in [start, end] up to the commitment's slot (agave: end defaults to it). */
  private getBlocks(p: Params): number[] {
    const start = Number(p[0]);
    const second = p[1];
    const cfg = (typeof second === 'object' && second !== null ? second : p[2]) as { commitment?: Commitment } | undefined;
    const top = this.chain.at(cfg?.commitment ?? 'finalized').slot;
    const end = typeof second === 'number' ? Math.min(second, top) : top;
    if (end - start > 500_000) throw new RpcFault(-32602, `Slot range too large; max 500000`);
    return this.chain.produced.filter((s) => s >= start && s <= end);
  }

  private getBlock(p: Params): unknown {
    const slot = Number(p[0]);
    const cfg = (p[1] ?? {}) as { commitment?: Commitment; transactionDetails?: string; maxSupportedTransactionVersion?: number };
    const top = this.chain.at(cfg.commitment ?? 'finalized');
    if (this.faults.notAvailable.delete(slot) || slot > top.slot) throw new RpcFault(-32004, `Block not available for slot ${slot}`);
    if (this.faults.missingFromStorage.has(slot)) throw new RpcFault(-32009, `Slot ${slot} was skipped, or missing in long-term storage`);
    const block = this.chain.blocks.get(slot);
    const lacks = block !== undefined && this.faults.lacksBlock !== null && this.faults.lacksBlock.random() < this.faults.lacksBlock.chance;
    if (this.faults.skippedLie.delete(slot) || !block || lacks) throw new RpcFault(-32007, `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`);
    if (cfg.transactionDetails !== 'accounts') throw new RpcFault(-32602, 'this harness serves transactionDetails "accounts" only');
    const hasV0 = block.transactions.some((t) => t.version === 0);
    if (hasV0 && cfg.maxSupportedTransactionVersion === undefined) throw new RpcFault(-32015, 'Transaction version (0) is not supported by the requesting client');
    const own = block.transactions.map((t) => ({
      transaction: { accountKeys: t.accountKeys, signatures: t.signatures },
      meta: { ...t.meta, status: t.meta.err === null ? { Ok: null } : { Err: t.meta.err } },
      version: t.version,
    }));
    const answer = {
      blockhash: block.blockhash,
      previousBlockhash: block.previousBlockhash,
      parentSlot: block.parentSlot,
      blockHeight: block.blockHeight,
      blockTime: block.blockTime,
      transactions: own,
    };
    if (this.padding === null) return answer;
    const ownJson = own.length > 0 ? `,${JSON.stringify(own).slice(1, -1)}` : '';
    return new RawJson(`${JSON.stringify({ ...answer, transactions: undefined }).slice(0, -1)},"transactions":[${this.padding.forSlot(slot)}${ownJson}]}`);
  }

  private signatureStatus(signature: string): unknown {
    const status = this.chain.statuses.get(signature);
    if (!status) return null;
    const block = this.chain.blocks.get(status.slot)!;
    const finalized = status.slot <= this.chain.at('finalized').slot;
    return {
      slot: status.slot,
      confirmations: finalized ? null : this.chain.tip().blockHeight - block.blockHeight,
      err: status.err,
      status: status.err === null ? { Ok: null } : { Err: status.err },
      confirmationStatus: finalized ? 'finalized' : 'confirmed',
    };
  }

  private accountInfo(key: string): unknown {
    const acc = this.chain.svm.getAccount(address(key));
    if (!acc.exists) return null;
    return { data: [Buffer.from(acc.data).toString('base64'), 'base64'], executable: acc.executable, lamports: Number(acc.lamports), owner: acc.programAddress, rentEpoch: 0, space: acc.data.length };
  }
}

function commitmentOf(cfg: unknown): Commitment {
  const c = (cfg as { commitment?: Commitment } | undefined)?.commitment;
  return c ?? 'finalized';
}
