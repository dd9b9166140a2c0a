/**
 * The load generator process: HTTP load (closed or open loop), the SQL baselines and the CPU-only
 * matching bench. It runs apart from the daemon and gateway so it never shares their event loop.
 */
import { serveIpc } from '../support/ipc';
import { burst, closedLoop, openLoop, type Burst, type ClosedLoop, type OpenLoop } from '../support/http-load';
import { sqlBurst, sqlLoop, type SqlBurst, type SqlLoop } from '../support/sql-load';
import { readSnapshots } from '../support/snapshot-read';
import { matchBench, type MatchOptions } from '../support/matching';

serveIpc({
  http: async (o: ClosedLoop | OpenLoop) => (o.mode === 'closed' ? closedLoop(o) : openLoop(o)),
  burst: async (o: Burst) => burst(o),
  sqlBurst: async (o: SqlBurst) => sqlBurst(o),
  sql: async (o: SqlLoop) => sqlLoop(o),
  readSnapshots: async (o: { url: string; batch: number }) => readSnapshots(o),
  match: async (o: MatchOptions) => matchBench(o),
});
