import type { SolanaRpcServer } from './rpc-server';
import type { SvmChain } from './svm-chain';

/**
 * A second backend behind the harness's load balancer, `lagBlocks` produced blocks behind the tip
 * (a node catching up after a restart, or one a provider keeps in rotation while it is behind). It
 * answers a share of getSignatureStatuses calls with what it knows: its own slot as `context.slot`
 * (older than the up-to-date node's), and null for every transaction that landed after it. The
 * other methods stay with the up-to-date node, so a client sees a fresh finalized block height and
 * then a stale "not found" for a transaction that is in fact finalized: the moment a payout that
 * trusts one status answer declares a landed transaction expired and signs it again. With
 * `worstMoment`, it answers every call about a transaction that landed and that it does not have
 * yet (the balancer pinned to it from the moment a payout lands, through the end of its window
 * when it landed late), and the up-to-date node answers every other call.
 */
export class LaggingStatusNode {
  /** Produced blocks the node is behind the tip. */
  lagBlocks: number;
  /** Every `every`-th getSignatureStatuses call is answered here (1: all of them; 0: none). */
  every: number;
  /** Answer every call that asks about a landed transaction this node does not have yet. */
  worstMoment = false;
  /** Answers served here that left out a transaction the chain holds (the stale "not found"). */
  staleMisses = 0;
  private calls = 0;

  constructor(
    private readonly chain: SvmChain,
    server: SolanaRpcServer,
    options: { lagBlocks: number; every: number },
  ) {
    this.lagBlocks = options.lagBlocks;
    this.every = options.every;
    server.routes.push((method, params) => (method === 'getSignatureStatuses' ? this.statuses(params) : undefined));
  }

  /** The slot this node has processed: `lagBlocks` produced blocks below the tip. */
  viewSlot(): number {
    const produced = this.chain.produced;
    return produced[Math.max(0, produced.length - 1 - this.lagBlocks)]!;
  }

  /** A call about a landed transaction this node does not have yet (it landed after its slot). */
  private harmful(signatures: readonly string[]): boolean {
    const view = this.viewSlot();
    return signatures.some((s) => (this.chain.statuses.get(s)?.slot ?? -1) > view);
  }

  private statuses(params: unknown[]): { result: unknown } | undefined {
    this.calls += 1;
    const ours = (this.worstMoment && this.harmful(params[0] as string[])) || (this.every > 0 && this.calls % this.every === 0);
    if (!ours) return undefined;
    const view = this.viewSlot();
    const finalizedView = this.chain.produced[Math.max(0, this.chain.produced.indexOf(view) - this.chain.finalityLag)]!;
    const value = (params[0] as string[]).map((signature) => {
      const status = this.chain.statuses.get(signature);
      if (!status) return null;
      if (status.slot > view) {
        this.staleMisses += 1;
        return null;
      }
      const finalized = status.slot <= finalizedView;
      return {
        slot: status.slot,
        confirmations: finalized ? null : 1,
        err: status.err,
        status: status.err === null ? { Ok: null } : { Err: status.err },
        confirmationStatus: finalized ? 'finalized' : 'confirmed',
      };
    });
    return { result: { context: { slot: view, apiVersion: '2.1.0' }, value } };
  }
}
