import type { MikroORM } from '@mikro-orm/postgresql';
import { canonicalDecimal } from '../store/repos/network-settings';

/** What the database says at scrape time (one round of queries per scrape). */
export interface DbFigures {
  readonly webhookEvents: ReadonlyMap<string, number>;
  readonly webhookFailedAttempts: number;
  readonly withdrawalsInReview: number;
  /** Sum of entries per account class, as decimal strings. */
  readonly ledger: ReadonlyMap<string, string>;
}

/**
 * Reads the figures the metrics need. Accounts are grouped into classes so the label set stays
 * small: `merchant:*:available`, `merchant:*:held`, `platform:fees`, `network:<CODE>:fees`, ...
 */
export async function readDbFigures(orm: MikroORM): Promise<DbFigures> {
  const em = orm.em.fork();
  const [events, attempts, review, ledger] = await Promise.all([
    em.execute<{ status: string; n: string }[]>('select status, count(*)::text as n from outbox_events group by status'),
    em.execute<{ n: string }[]>('select count(*)::text as n from webhook_attempts where status_code is null or status_code < 200 or status_code > 299'),
    em.execute<{ n: string }[]>(`select count(*)::text as n from withdrawals where status = 'review'`),
    em.execute<{ account: string; total: string }[]>(
      `select case when account like 'merchant:%' then 'merchant:*:' || split_part(account, ':', 3) else account end as account, sum(amount)::text as total
       from ledger_entries group by 1 order by 1`,
    ),
  ]);
  return {
    webhookEvents: new Map(events.map((r) => [r.status, Number(r.n)])),
    webhookFailedAttempts: Number(attempts[0]?.n ?? 0),
    withdrawalsInReview: Number(review[0]?.n ?? 0),
    ledger: new Map(ledger.map((r) => [r.account, canonicalDecimal(r.total)])),
  };
}
