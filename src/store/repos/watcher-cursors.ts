import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChainCursor } from '../../chains/types';

export interface SavedCursor {
  /** The family's cursor JSON, as its adapter built it. */
  readonly cursor: ChainCursor;
  /** The last final point (the family's JSON), null when unknown (e.g. after a rescan). */
  readonly finalized: ChainCursor | null;
  readonly paused: boolean;
}

export async function loadCursor(em: EntityManager, network: string): Promise<SavedCursor | null> {
  const rows = await em.execute<{ cursor: ChainCursor; finalized: ChainCursor | null; paused: boolean }[]>('select cursor, finalized, paused from watcher_cursors where network = ?', [network]);
  const r = rows[0];
  return r ? { cursor: r.cursor, finalized: r.finalized, paused: r.paused } : null;
}

/** The cursor, with the last final point (null when unknown, e.g. after a rescan). */
export async function saveCursor(em: EntityManager, network: string, cursor: ChainCursor, finalized: ChainCursor | null, now: Date): Promise<void> {
  await em.execute(
    `insert into watcher_cursors (network, cursor, finalized, paused, updated_at) values (?, ?::jsonb, ?::jsonb, false, ?)
     on conflict (network) do update set cursor = excluded.cursor, finalized = excluded.finalized, updated_at = excluded.updated_at`,
    [network, JSON.stringify(cursor), finalized === null ? null : JSON.stringify(finalized), now],
  );
}

export async function saveFinal(em: EntityManager, network: string, finalized: ChainCursor): Promise<void> {
  await em.execute(`update watcher_cursors set finalized = ?::jsonb where network = ?`, [JSON.stringify(finalized), network]);
}

export async function savePaused(em: EntityManager, network: string, paused: boolean): Promise<void> {
  await em.execute(`update watcher_cursors set paused = ? where network = ?`, [paused, network]);
}
