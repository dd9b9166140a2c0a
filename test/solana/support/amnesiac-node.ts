import type { SolanaRpcServer } from './rpc-server';
import type { SvmChain } from './svm-chain';

/**
 * A backend that is up to date yet lost part of its history (restarted from a snapshot without
 * transaction history, or a gap in its long-term storage): getSignatureStatuses answers the tip as
 * `context.slot` and null for the signatures in `forgotten`, even after they were finalized. No
 * positive proof read from it can tell; this is what the host's day-long watch of expired payout
 * versions exists for. Clear `forgotten` and the node answers like the others again.
 */
export class AmnesiacNode {
  readonly forgotten = new Set<string>();

  constructor(
    private readonly chain: SvmChain,
    server: SolanaRpcServer,
  ) {
    server.routes.push((method, params) => (method === 'getSignatureStatuses' ? this.statuses(params[0] as string[]) : undefined));
  }

  private statuses(signatures: readonly string[]): { result: unknown } | undefined {
    if (!signatures.some((s) => this.forgotten.has(s))) return undefined;
    const finalized = this.chain.at('finalized').slot;
    const value = signatures.map((s) => {
      const status = this.forgotten.has(s) ? undefined : this.chain.statuses.get(s);
      if (!status) return null;
      return {
        slot: status.slot,
        confirmations: status.slot <= finalized ? null : 1,
        err: status.err,
        status: status.err === null ? { Ok: null } : { Err: status.err },
        confirmationStatus: status.slot <= finalized ? 'finalized' : 'confirmed',
      };
    });
    return { result: { context: { slot: this.chain.tip().slot, apiVersion: '2.1.0' }, value } };
  }
}
