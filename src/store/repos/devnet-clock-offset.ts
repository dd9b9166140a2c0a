import type { EntityManager } from '@mikro-orm/postgresql';
import { SystemSetting } from '../entities';

/** system_settings key of the devnet clock's offset from real time (ms). */
const CLOCK_OFFSET_KEY = 'devnet_clock_offset_ms';

/**
 * The devnet clock's offset survives restarts, so advanced time never runs backwards. Only a devnet
 * daemon reads or writes it: a live daemon's clock is real time and nothing can move it.
 */
export async function loadDevnetClockOffset(em: EntityManager): Promise<number> {
  const saved = await em.findOne(SystemSetting, { key: CLOCK_OFFSET_KEY });
  return Number(saved?.value ?? 0);
}

export async function saveDevnetClockOffset(em: EntityManager, offsetMs: number, now: Date): Promise<void> {
  await em.execute(`insert into system_settings (key, value, updated_at) values (?, ?, ?) on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`, [
    CLOCK_OFFSET_KEY,
    JSON.stringify(offsetMs),
    now,
  ]);
}
