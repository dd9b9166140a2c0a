/**
 * A load balancer's backend that is out of sync (CHAINS.md, "Real providers": TronGrid's backends
 * answer `{}` / `[]` for a transaction or block they have not seen yet). The harness's node routes
 * the requests this backend takes to a view of the chain `blocks` below the real head: blocks above
 * it are `{}`, their transaction infos `[]`, their transactions' infos `{}`, its heads are older.
 */
export interface LaggingBackend {
  /** How far behind the real head this backend is. */
  readonly blocks: number;
  /** Which requests it answers: by path; `share` of them (1 = all, 0.5 = every other one). */
  readonly paths: ReadonlySet<string>;
  readonly share?: number;
}

/**
 * The worst moment for a payout: the heads (wallet/getnowblock, walletsolidity/getnowblock) come
 * from an up-to-date backend, so the chain looks past the payout's expiration, while every lookup of
 * a transaction or a block lands on the lagging one, which has not seen the payout's block.
 */
export const WORST_MOMENT_PATHS: ReadonlySet<string> = new Set([
  'wallet/gettransactioninfobyid',
  'walletsolidity/gettransactioninfobyid',
  'wallet/getblockbynum',
  'walletsolidity/getblockbynum',
  'wallet/gettransactioninfobyblocknum',
  'wallet/getblockbylimitnext',
  'walletsolidity/getblockbylimitnext',
]);

/** Decides per request whether the lagging backend answers it (round-robin for a share below 1). */
export class LagRouter {
  private seen = 0;

  constructor(readonly backend: LaggingBackend) {}

  /** Blocks behind for this request: 0 when the up-to-date backend answers it. */
  behind(path: string): number {
    if (!this.backend.paths.has(path)) return 0;
    const share = this.backend.share ?? 1;
    this.seen += 1;
    return Math.floor(this.seen * share) > Math.floor((this.seen - 1) * share) ? this.backend.blocks : 0;
  }
}
