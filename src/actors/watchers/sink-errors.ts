import type { MikroORM } from '@mikro-orm/postgresql';
import { isRetryable } from '../../chains/sync/retry-rule';

/**
 * The watcher's database did not answer while it recorded observations: retried by the watch's
 * run loop (the step is replayed from the committed cursor; payments are keyed, nothing doubles).
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  readonly code = 'store_unavailable';
  readonly retryable = true;
  constructor(cause: unknown) {
    super('the database did not answer while the watcher recorded a block; retried', { cause });
  }
}

const PROBE_TIMEOUT_MS = 2_000;

/**
 * Maps a failure of the watcher's sink once, at that boundary. A failure of a retryable class
 * stays as it is. Any other is judged by the database itself, never by its message (pg reports a
 * cut connection as a bare Error): when a probe query fails too, it was the database
 * (StoreUnavailableError, retried); when the database answers, the error stands (a bug: the watch stops
 * and the watcher halts).
 */
export async function classifySinkError(error: unknown, orm: MikroORM): Promise<unknown> {
  if (isRetryable(error)) return error;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      orm.em.fork().getConnection().execute('select 1'),
      new Promise((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('probe timed out')), PROBE_TIMEOUT_MS);
      }),
    ]);
    return error;
  } catch {
    return new StoreUnavailableError(error);
  } finally {
    clearTimeout(timer);
  }
}
