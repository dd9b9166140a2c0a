import { performance } from 'node:perf_hooks';
import { Client } from 'pg';

/**
 * Baseline of the restart: read every open invoice's uuid, network and snapshot with raw SQL, in
 * the same keyset pages as the daemon's restore, and JSON.parse each snapshot. Nothing else.
 */
export async function readSnapshots(o: { url: string; batch: number }): Promise<{ rows: number; ms: number }> {
  if (!/@127\.0\.0\.1[:/]/.test(o.url)) throw new Error('the bench only talks to 127.0.0.1');
  const client = new Client({ connectionString: o.url });
  await client.connect();
  try {
    const t0 = performance.now();
    let after = '00000000-0000-0000-0000-000000000000';
    let rows = 0;
    const kept: unknown[] = [];
    for (;;) {
      const res = await client.query<{ uuid: string; network: string | null; actor_snapshot: string }>(
        'select uuid, network, actor_snapshot::text as actor_snapshot from invoices where open and uuid > $1 order by uuid limit $2',
        [after, o.batch],
      );
      for (const r of res.rows) kept.push(JSON.parse(r.actor_snapshot));
      rows += res.rows.length;
      if (res.rows.length < o.batch) break;
      after = res.rows[res.rows.length - 1]!.uuid;
    }
    const ms = performance.now() - t0;
    kept.length = 0;
    return { rows, ms };
  } finally {
    await client.end();
  }
}
