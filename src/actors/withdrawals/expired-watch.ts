import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import { formatAmount, toDecimal } from '../../domain/decimal';
import type { NetworkCode } from '../../domain/networks';
import type { ChainAdapter, ExpiredPayoutLanding } from '../../chains/types';
import { RawSql } from '../../store/raw-sql';
import { postJournalsSql, type JournalInput } from '../../store/repos/ledger';
import { HOST_META } from '../../store/repos/payout-rows';
import { canonicalDecimal } from '../../store/repos/network-settings';

/** How long an expired payout transaction stays watched after the payout was signed anew. */
export const EXPIRED_WATCH_MS = 24 * 60 * 60 * 1000;

export interface ExpiredPayoutWatchDeps {
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly adapters: ReadonlyMap<NetworkCode, ChainAdapter>;
  /** Between two rounds. */
  readonly intervalMs: number;
}

interface Row {
  uuid: string;
  network: string;
  address: string;
  net_payout: string;
  expired: string;
  signed_at: string | null;
}

/** The journal of an expired payout transaction that executed after all (the money left a second time). */
export const expiredLandedReference = (uuid: string, txHash: string): string => `withdrawal:${uuid}:expired-landed:${txHash}`;

/**
 * Watches, for a day after the re-signing, every payout transaction a family reported `expired`
 * (signed_meta.expired_tx_hashes). `expired` is proven on the chain before anything is re-signed, so
 * a landing should never happen; if one does (a provider that hid it, a proof gone wrong), the payout
 * may have been paid twice and it is never ignored: an operator alert (`expired_payout_landed`, an
 * error log line naming the withdrawal, transaction and amount) and, when the transfer executed, a
 * journal moving `net_payout` out of the hot wallet again (`chain:<NET>:payouts`) against
 * `chain:<NET>:expired_payouts_landed`, the amount to recover from the payee. Booked once per
 * transaction (the journal's reference); a reverted landing moved no token and is only alerted.
 */
export class ExpiredPayoutWatch {
  private readonly sql: RawSql;
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<number> | null = null;
  /** Reverted landings already alerted by this process (nothing is booked for them). */
  private readonly alerted = new Set<string>();

  constructor(private readonly deps: ExpiredPayoutWatchDeps) {
    this.sql = new RawSql(deps.orm);
  }

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.tick(), this.deps.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.round?.catch(() => undefined);
  }

  /** One round (rounds never overlap); resolves with the number of landings booked. */
  tick(): Promise<number> {
    if (this.round !== null) return this.round;
    this.round = this.check()
      .catch((err: unknown) => {
        this.deps.logger.warn({ err }, 'expired payout watch: round failed; retried at the next one');
        return 0;
      })
      .finally(() => {
        this.round = null;
      });
    return this.round;
  }

  private async check(): Promise<number> {
    const now = this.deps.clock.now();
    const since = now.getTime() - EXPIRED_WATCH_MS;
    const rows = await this.sql.query<Row>(
      `select uuid, network, address, net_payout::text as net_payout, signed_meta ->> '${HOST_META.expired}' as expired, signed_meta ->> '${HOST_META.signedAt}' as signed_at
         from withdrawals where signed_meta ? '${HOST_META.expired}' and updated_at >= $1::timestamptz`,
      [new Date(since).toISOString()],
    );
    let booked = 0;
    for (const row of rows) {
      if (row.signed_at !== null && Number(row.signed_at) < since) continue;
      const adapter = this.deps.adapters.get(row.network as NetworkCode);
      if (adapter?.expiredPayoutLanded === undefined) continue;
      for (const txHash of row.expired.split(',').filter((h) => h.length > 0)) {
        if (this.alerted.has(txHash)) continue;
        let landing: ExpiredPayoutLanding | null;
        try {
          landing = await adapter.expiredPayoutLanded(txHash);
        } catch (err) {
          this.deps.logger.warn({ err, withdrawalUuid: row.uuid, network: row.network, txHash }, 'expired payout watch: lookup failed; asked again at the next round');
          continue;
        }
        if (landing !== null && (await this.landed(row, txHash, landing))) booked++;
      }
    }
    return booked;
  }

  /** Alerts and books one landing; true when it was booked now (not by an earlier round). */
  private async landed(row: Row, txHash: string, landing: ExpiredPayoutLanding): Promise<boolean> {
    const amount = canonicalDecimal(row.net_payout);
    const line = { alert: 'expired_payout_landed', withdrawalUuid: row.uuid, network: row.network, txHash, blockHeight: landing.blockHeight, to: row.address, amount };
    if (!landing.succeeded) {
      this.alerted.add(txHash);
      this.deps.logger.error({ ...line, succeeded: false }, 'a payout transaction reported expired was mined after all (reverted: no token moved); check the payout proofs of this network');
      return false;
    }
    const journal: JournalInput = {
      reference: expiredLandedReference(row.uuid, txHash),
      kind: 'withdrawal_expired_landed',
      lines: [
        { account: `chain:${row.network}:payouts`, amount },
        { account: `chain:${row.network}:expired_payouts_landed`, amount: formatAmount(toDecimal(amount).negated()) },
      ],
    };
    const now = this.deps.clock.now();
    const count = await this.sql.transaction((q) => postJournalsSql(q, [journal], now));
    this.alerted.add(txHash);
    if (count === 0) return false; // booked and alerted by an earlier round or process
    this.deps.logger.error(
      { ...line, succeeded: true, journal: journal.reference },
      `a payout transaction reported expired executed after all: withdrawal ${row.uuid} may be paid twice; ${amount} booked to chain:${row.network}:expired_payouts_landed (recover it from ${row.address})`,
    );
    return true;
  }
}
