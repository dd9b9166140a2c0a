import type { EntityManager } from '@mikro-orm/postgresql';
import { encodeCursor, type ListQuery } from '../../domain/list-query';
import type { Invoice, Withdrawal } from '../entities';

/** One page of a merchant's list, newest first; `nextCursor` null on the last page. */
export interface Page<T> {
  readonly rows: T[];
  readonly nextCursor: string | null;
}

type Listed = typeof Invoice | typeof Withdrawal;

/**
 * Keyset paging on (created_at, uuid), newest first: a page continues strictly after the last
 * row of the previous one, so rows inserted meanwhile (newer, at the head) never shift a page,
 * and no row is skipped or repeated (no offset). `keyField`: orderId or reference.
 */
/** `only`: further equality filters (GET /v1/withdrawals lists withdrawals, not refunds: `{ kind: 'withdrawal' }`). */
export async function keysetPage<E extends Listed>(
  em: EntityManager,
  entity: E,
  merchantId: string,
  query: ListQuery,
  keyField: 'orderId' | 'reference',
  only: Record<string, unknown> = {},
): Promise<Page<InstanceType<E>>> {
  const and: Record<string, unknown>[] = [{ merchantId }];
  if (Object.keys(only).length > 0) and.push(only);
  if (query.status !== null) and.push({ status: query.status });
  if (query.network !== null) and.push({ network: query.network });
  if (query.key !== null) and.push({ [keyField]: query.key });
  if (query.createdFrom !== null) and.push({ createdAt: { $gte: query.createdFrom } });
  if (query.createdTo !== null) and.push({ createdAt: { $lt: query.createdTo } });
  if (query.after !== null) {
    and.push({ $or: [{ createdAt: { $lt: query.after.createdAt } }, { createdAt: query.after.createdAt, uuid: { $lt: query.after.uuid } }] });
  }
  // One row more than asked tells whether another page exists.
  const found = (await em.find(entity as typeof Invoice, { $and: and } as never, {
    orderBy: [{ createdAt: 'desc' }, { uuid: 'desc' }],
    limit: query.limit + 1,
  })) as unknown as InstanceType<E>[];
  const rows = found.slice(0, query.limit);
  const last = rows[rows.length - 1];
  const nextCursor = found.length > query.limit && last ? encodeCursor({ createdAt: last.createdAt, uuid: last.uuid }) : null;
  return { rows, nextCursor };
}
