import type { EntityManager } from '@mikro-orm/postgresql';
import { WatcherCursor } from '../entities';

export interface SavedCursor {
  readonly height: number;
  readonly hash: string;
  readonly finalHeight: number | null;
  readonly finalHash: string | null;
  readonly paused: boolean;
}

export async function loadCursor(em: EntityManager, network: string): Promise<SavedCursor | null> {
  const saved = await em.findOne(WatcherCursor, { network });
  return saved ? { height: saved.height, hash: saved.hash, finalHeight: saved.finalHeight, finalHash: saved.finalHash, paused: saved.paused } : null;
}

/** The cursor, with the last final block (null when unknown, e.g. after a rescan). */
export async function saveCursor(em: EntityManager, network: string, cursor: { height: number; hash: string }, final: { height: number; hash: string } | null, now: Date): Promise<void> {
  await em.execute(
    `insert into watcher_cursors (network, height, hash, final_height, final_hash, paused, updated_at) values (?, ?, ?, ?, ?, false, ?)
     on conflict (network) do update set height = excluded.height, hash = excluded.hash, final_height = excluded.final_height, final_hash = excluded.final_hash, updated_at = excluded.updated_at`,
    [network, cursor.height, cursor.hash, final?.height ?? null, final?.hash ?? null, now],
  );
}

export async function saveFinal(em: EntityManager, network: string, final: { height: number; hash: string }): Promise<void> {
  await em.execute(`update watcher_cursors set final_height = ?, final_hash = ? where network = ?`, [final.height, final.hash, network]);
}

export async function savePaused(em: EntityManager, network: string, paused: boolean): Promise<void> {
  await em.execute(`update watcher_cursors set paused = ? where network = ?`, [paused, network]);
}
