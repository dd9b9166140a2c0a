import { Client } from 'pg';
import type { Logger } from 'pino';

/** Key of the one PostgreSQL advisory lock that makes a daemon the active engine of a database. */
const ENGINE_LOCK_KEY = 'chainpay-engine-v1';

export interface EngineLock {
  /** The daemon is stopping: the lock's connection may now end without alarm. */
  stopping(): void;
  release(): Promise<void>;
}

/**
 * Several daemons may point at one database, but only the holder of this session-level advisory
 * lock runs watchers, actors and the webhook dispatcher: the others wait as hot standbys and take
 * over when the active one goes away (its session ends, so PostgreSQL frees the lock).
 * If the lock's connection breaks, this daemon can no longer prove it is alone: `onLost` must stop it.
 */
export async function acquireEngineLock(databaseUrl: string, logger: Logger, onLost: (err: Error) => void): Promise<EngineLock> {
  const client = new Client({ connectionString: databaseUrl, application_name: 'chainpay-engine-lock' });
  await client.connect();
  const got = await client.query<{ ok: boolean }>('select pg_try_advisory_lock(hashtext($1)) as ok', [ENGINE_LOCK_KEY]);
  if (!got.rows[0]?.ok) {
    logger.warn('another daemon is the active engine of this database; waiting as a standby');
    await client.query('select pg_advisory_lock(hashtext($1))', [ENGINE_LOCK_KEY]);
    logger.info('engine lock acquired: this daemon is now active');
  }
  let released = false;
  const lost = (err: Error): void => {
    if (released) return;
    released = true;
    logger.fatal({ err }, 'lost the engine lock connection; stopping this daemon');
    onLost(err);
  };
  client.on('error', lost);
  client.on('end', () => lost(new Error('engine lock connection ended')));
  return {
    stopping: () => {
      released = true;
    },
    release: async () => {
      released = true;
      await client.query('select pg_advisory_unlock(hashtext($1))', [ENGINE_LOCK_KEY]).catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}
