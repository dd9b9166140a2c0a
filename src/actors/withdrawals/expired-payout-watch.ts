import type { Logger } from 'pino';
import type { ChainAdapter } from '../../chains/types';
import type { Clock } from '../../domain/clock';
import type { NetworkCode } from '../../domain/networks';
import type { MikroORM } from '@mikro-orm/postgresql';
import { RawSql, type Query } from '../../store/raw-sql';
import { HOST_META } from '../../store/repos/payout-rows';
import { postJournalsSql, type JournalInput } from '../../store/repos/ledger';
import { canonicalDecimal } from '../../store/repos/network-settings';
import { hotAccount } from '../../store/repos/ledger-accounts';

/** How long a replaced payout version is watched after its replacement was signed. */
export const EXPIRED_WATCH_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A pass every minute: the versions it looks for can only appear as a provider's error is corrected. */
export const EXPIRED_WATCH_INTERVAL_MS = 60_000;

/** The account of payouts the chain executed beyond the one a withdrawal paid (an operator's loss to recover). */
export const extraPayoutAccount = (network: string): string => `loss:${network}:extra_payouts`;
export const extraPayoutReference = (uuid: string, txHash: string): string => `withdrawal:${uuid}:extra_payout:${txHash}`;

/**
 * The closed withdrawals re-signed since $1 (ms) on the networks $2: served by the partial index
 * withdrawals_expired_versions_index (migration 20261129100000), never a scan of the table.
 */
export const EXPIRED_WATCH_SQL = `select uuid, merchant_id, network, status, tx_hash, net_payout::text as net_payout, signed_meta from withdrawals
  where signed_meta ? 'expired_tx_hashes' and (signed_meta->>'signed_at_ms')::bigint >= $1 and network = any($2::text[]) and status in ('completed', 'failed')`;

export interface ExpiredPayoutWatchDeps {
  readonly query: Query;
  readonly transaction: <T>(fn: (q: Query) => Promise<T>) => Promise<T>;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly adapters: ReadonlyMap<NetworkCode, ChainAdapter>;
  readonly intervalMs?: number;
}

interface WatchedRow {
  uuid: string;
  merchant_id: string;
  network: string;
  status: string;
  tx_hash: string | null;
  net_payout: string;
  signed_meta: Record<string, string | number> | string;
}

/** A replaced version of a closed withdrawal's payout that a final block holds. */
export interface ExtraPayoutFound {
  readonly withdrawalUuid: string;
  readonly network: string;
  readonly txHash: string;
  readonly reverted: boolean;
  /** True when this pass booked it (a successful transfer not booked before). */
  readonly booked: boolean;
}

/**
 * After an expiry the host signs a payout anew (payout-steps.ts); that rests on the family's proof
 * that the replaced version can never execute, which for SOLANA is the answer of a provider's
 * node. Should a proof be wrong, the chain pays twice, and that must be seen and booked: for a day
 * after each re-signing, every version of a closed withdrawal's payout other than the one it
 * completed with (its `expired_tx_hashes`, and the newest one when an earlier version paid) is
 * looked up on the families that offer payoutLanded. One that landed:
 * - successfully: an error line with `alert: expired_payout_landed` and a journal moving net_payout
 *   out of the hot wallet's books (`chain:<NET>:hot`) against `loss:<NET>:extra_payouts`,
 *   booked once by its reference (the withdrawal itself is not changed: it already ended);
 * - reverted (fees only, no token moved): the same alert line, once per process.
 * Open withdrawals are left to payoutStatus(), which reports any of their versions that landed.
 */
export class ExpiredPayoutWatch {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private readonly alerted = new Set<string>();

  constructor(private readonly deps: ExpiredPayoutWatchDeps) {}

  start(): void {
    if (this.timer || this.networks().length === 0) return;
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.runOnce().catch((err: unknown) => this.deps.logger.warn({ err }, 'expired payout watch pass failed; next pass retries'));
      void this.running.finally(() => (this.running = null));
    }, this.deps.intervalMs ?? EXPIRED_WATCH_INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One pass over the closed withdrawals re-signed within the window; returns what it found. */
  async runOnce(): Promise<ExtraPayoutFound[]> {
    const networks = this.networks();
    if (networks.length === 0) return [];
    const since = this.deps.clock.now().getTime() - EXPIRED_WATCH_WINDOW_MS;
    const rows = await this.deps.query<WatchedRow>(EXPIRED_WATCH_SQL, [since, networks], 'chainpay_expired_payout_watch');
    const found: ExtraPayoutFound[] = [];
    for (const row of rows) {
      for (const txHash of replacedVersions(row)) {
        const landed = await this.deps.adapters.get(row.network as NetworkCode)!.payoutLanded!(txHash);
        if (landed) found.push(await this.report(row, txHash, landed.reverted, landed.blockHeight));
      }
    }
    return found;
  }

  private networks(): NetworkCode[] {
    return [...this.deps.adapters].filter(([, a]) => a.payoutLanded !== undefined).map(([code]) => code);
  }

  private async report(row: WatchedRow, txHash: string, reverted: boolean, blockHeight: number): Promise<ExtraPayoutFound> {
    const line = {
      alert: 'expired_payout_landed',
      withdrawalUuid: row.uuid,
      merchantId: row.merchant_id,
      network: row.network,
      txHash,
      paidTxHash: row.tx_hash,
      withdrawalStatus: row.status,
      blockHeight,
    };
    if (reverted) {
      if (!this.alerted.has(txHash)) this.deps.logger.error({ ...line, reverted }, 'a payout version declared expired landed after all, and failed there (fees only); check the provider');
      this.alerted.add(txHash);
      return { withdrawalUuid: row.uuid, network: row.network, txHash, reverted, booked: false };
    }
    const amount = canonicalDecimal(row.net_payout);
    const journal: JournalInput = {
      reference: extraPayoutReference(row.uuid, txHash),
      kind: 'withdrawal_extra_payout',
      lines: [
        { account: hotAccount(row.network), amount },
        { account: extraPayoutAccount(row.network), amount: `-${amount}` },
      ],
    };
    const booked = (await this.deps.transaction((q) => postJournalsSql(q, [journal], this.deps.clock.now()))) === 1;
    if (booked) {
      this.deps.logger.error(
        { ...line, amount },
        'a payout version declared expired landed after all: the payee was paid twice (booked to loss:<NET>:extra_payouts); recover the amount and check the provider',
      );
    }
    return { withdrawalUuid: row.uuid, network: row.network, txHash, reverted, booked };
  }
}

/** Every signed version of the row's payout except the one the withdrawal completed with. */
function replacedVersions(row: WatchedRow): string[] {
  const meta = typeof row.signed_meta === 'string' ? (JSON.parse(row.signed_meta) as Record<string, string | number>) : row.signed_meta;
  const versions = [...String(meta[HOST_META.expired] ?? '').split(','), String(meta[HOST_META.latest] ?? '')];
  return [...new Set(versions.filter((h) => h.length > 0 && h !== row.tx_hash))];
}

/** The daemon's watch, on a raw connection of the ORM's pool. */
export function expiredPayoutWatch(deps: { orm: MikroORM; logger: Logger; clock: Clock; adapters: ReadonlyMap<NetworkCode, ChainAdapter>; intervalMs?: number }): ExpiredPayoutWatch {
  const sql = new RawSql(deps.orm);
  return new ExpiredPayoutWatch({ query: sql.query, transaction: (fn) => sql.transaction(fn), logger: deps.logger, clock: deps.clock, adapters: deps.adapters, intervalMs: deps.intervalMs });
}
