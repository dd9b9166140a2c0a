import type { MikroORM } from '@mikro-orm/postgresql';
import type { InvoiceMachineEvent } from '../../domain/invoice-events';
import type { Entry } from './invoice-entry';

const RESTORE_BATCH = 1000;
const RESUME_SLICE = 2000;

export interface RestoredRow {
  readonly uuid: string;
  readonly network: string | null;
  readonly snapshot: unknown;
}

/**
 * Every open invoice's persisted snapshot, in keyset pages; the next page is read while the
 * actors of this one are built (`build`), so PostgreSQL's side of the read overlaps the CPU work
 * instead of adding to it. Resolves with the number of rows built.
 */
export async function readOpenSnapshots(orm: MikroORM, build: (row: RestoredRow) => void): Promise<number> {
  const page = (after: string) =>
    orm.em
      .fork()
      .execute<{ uuid: string; network: string | null; actor_snapshot: unknown }[]>('select uuid, network, actor_snapshot from invoices where open and uuid > ? order by uuid limit ?', [
        after,
        RESTORE_BATCH,
      ]);
  let count = 0;
  let next = page('00000000-0000-0000-0000-000000000000');
  for (;;) {
    const rows = await next;
    const full = rows.length === RESTORE_BATCH;
    if (full) next = page(rows[rows.length - 1]!.uuid);
    for (const row of rows) {
      build({ uuid: row.uuid, network: row.network, snapshot: typeof row.actor_snapshot === 'string' ? JSON.parse(row.actor_snapshot) : row.actor_snapshot });
      count++;
    }
    if (!full) return count;
  }
}

/** What resumeAll needs of the host: deliver RESUME now (and commit what changed), or queue it. */
export interface ResumeHost {
  /** Deliver at once and commit if the actor changed; resolves once committed (or nothing to commit). */
  resumeNow(uuid: string, entry: Entry, event: Extract<InvoiceMachineEvent, { type: 'RESUME' }>): Promise<unknown>;
  /** Behind what is queued for the invoice. */
  resumeQueued(uuid: string, event: Extract<InvoiceMachineEvent, { type: 'RESUME' }>): Promise<unknown>;
}

/**
 * RESUME to every restored actor: its state is re-entered, which arms its `after` delay from the
 * context's deadline; whatever fell due while the daemon was down happens now (the machine decides,
 * the host predicts nothing). In slices, with a turn of the event loop between them, so start-up
 * does not block gRPC for seconds; only actors whose RESUME changed something commit.
 */
export async function resumeEntries(entries: ReadonlyMap<string, Entry>, host: ResumeHost, at: Date): Promise<number> {
  const event = { type: 'RESUME', at: at.toISOString() } as const;
  let commits: Promise<unknown>[] = [];
  let inSlice = 0;
  let count = 0;
  for (const [uuid, entry] of entries) {
    count++;
    commits.push(entry.queued > 0 ? host.resumeQueued(uuid, event) : host.resumeNow(uuid, entry, event));
    if (++inSlice < RESUME_SLICE) continue;
    inSlice = 0;
    await Promise.all(commits);
    commits = [];
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(commits);
  return count;
}
