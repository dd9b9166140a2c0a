import { ComputeBudgetInstruction, ComputeBudgetProgram, TransactionInstruction, VersionedTransaction } from '@solana/web3.js';
import { base58 } from '@scure/base';
import type { SolanaRpcServer } from './rpc-server';

/**
 * Leaders under load, in front of the harness's sendTransaction: each send is forwarded to the
 * next block or dropped (the RPC still answers the signature, as agave does). A send is dropped
 * with probability `dropShare`, and one paying at least `marketFee` micro-lamports per compute unit
 * (ComputeBudget setComputeUnitPrice) with a third of it: a transaction lands by being sent again,
 * and sooner with a priority fee. Meanwhile getRecentPrioritizationFees answers what mainnet
 * answers for accounts nobody else writes: per slot the lowest fee that landed a transaction
 * writing them, 0 in nine slots out of ten. Seeded, so a run is reproducible.
 */
export class BusyLeader {
  busy = false;
  dropShare = 0.9;
  marketFee = 100_000;
  dropped = 0;
  forwarded = 0;
  /** Sends seen while busy, by signature. */
  readonly sends = new Map<string, number>();
  private state: number;

  constructor(server: SolanaRpcServer, seed = 7) {
    this.state = seed >>> 0;
    server.routes.push((method, params) => {
      if (!this.busy) return undefined;
      if (method === 'getRecentPrioritizationFees') return { result: this.recentFees() };
      if (method === 'sendTransaction') return this.send(String(params[0]));
      return undefined;
    });
  }

  /** The compute-unit price a transaction offers (0 without a setComputeUnitPrice instruction). */
  static price(tx: VersionedTransaction): number {
    const keys = tx.message.staticAccountKeys;
    for (const ix of tx.message.compiledInstructions) {
      const programId = keys[ix.programIdIndex]!;
      if (!programId.equals(ComputeBudgetProgram.programId)) continue;
      const instruction = new TransactionInstruction({ programId, keys: [], data: Buffer.from(ix.data) });
      if (ComputeBudgetInstruction.decodeInstructionType(instruction) === 'SetComputeUnitPrice') {
        return Number(ComputeBudgetInstruction.decodeSetComputeUnitPrice(instruction).microLamports);
      }
    }
    return 0;
  }

  private send(base64: string): { result: unknown } | undefined {
    const tx = VersionedTransaction.deserialize(Buffer.from(base64, 'base64'));
    const signature = base58.encode(tx.signatures[0]!);
    this.sends.set(signature, (this.sends.get(signature) ?? 0) + 1);
    const share = BusyLeader.price(tx) >= this.marketFee ? this.dropShare / 3 : this.dropShare;
    if (this.random() < share) {
      this.dropped += 1;
      return { result: signature };
    }
    this.forwarded += 1;
    return undefined; // the up-to-date node queues it for the next block
  }

  private recentFees(): { slot: number; prioritizationFee: number }[] {
    return Array.from({ length: 150 }, (_, i) => ({ slot: i + 1, prioritizationFee: this.random() < 0.9 ? 0 : Math.floor(this.random() * (this.marketFee / 2)) }));
  }

  /** mulberry32: a reproducible stream of draws in [0, 1) (a test's dice, not cryptography). */
  private random(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}
