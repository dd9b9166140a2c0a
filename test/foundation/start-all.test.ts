import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { STOP_MARGIN_MS } from '../../gateway/stop-on-signals';
import { ensureBuilt } from '../support/dist';
import { spawnNpm, type Spawned } from '../support/processes';
import { alive, commandLine, descendants, listening } from '../support/process-tree';

jest.setTimeout(300_000);

const started: Spawned[] = [];
afterAll(() => {
  for (const p of started.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
});

beforeAll(() => ensureBuilt(), 300_000);

/** Line 1 of postmaster.pid is the postmaster's pid, line 4 its port. */
function postmaster(dataDir: string): { pid: number; port: number } {
  const lines = fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n');
  return { pid: Number(lines[0]), port: Number(lines[3]) };
}

describe('`npm start`: node on dist/, the daemon and the gateway in one process', () => {
  it('starts on a fresh DATA_DIR with the embedded defaults and serves GET /v1/networks; SIGTERM to npm drains and leaves no process, no PostgreSQL, no open port', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-start-all-'));
    const graceMs = 2_000;
    // No HTTP_HOST, no METRICS_PORT: the defaults (loopback; metrics on 9464 unless another process has it).
    const p = spawnNpm('start', { DATA_DIR: dataDir, GRPC_PORT: '0', HTTP_PORT: '0', HTTP_HOST: undefined, METRICS_PORT: undefined, DATABASE_URL: undefined, SHUTDOWN_GRACE_MS: String(graceMs) });
    started.push(p);
    const upLine = await p.waitFor(/chainpay is up/, 240_000);
    const up = JSON.parse(upLine) as { http: string; grpc: string; listening: string; metrics: string | null; banner: boolean; msg: string };
    expect(up.http).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(up.http).not.toMatch(/:0$/);
    // The message says what is true: the gateway listens on loopback only.
    expect(up.listening).toBe(`127.0.0.1:${new URL(up.http).port}`);
    expect(up.msg).toContain(`chainpay is up at ${up.http}`);
    expect(up.banner).toBe(true);
    const outside = Object.values(os.networkInterfaces())
      .flat()
      .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
    if (outside !== undefined) expect(await listening(Number(new URL(up.http).port), outside)).toBe(false);
    // Metrics are on by default, on 127.0.0.1:9464 (or off with a warning when 9464 is taken).
    if (up.metrics === null) expect(p.output()).toMatch(/metrics not served: the port is taken/);
    else {
      expect(up.metrics).toBe('http://127.0.0.1:9464/metrics');
      expect((await fetch(up.metrics)).status).toBe(200);
    }
    const res = await fetch(`${up.http}/v1/networks`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { networks: { code: string }[] };
    expect(body.networks.map((n) => n.code)).toEqual(['TRC20', 'BEP20', 'TON', 'POLYGON', 'ARBITRUM', 'SOLANA']);
    // The embedded PostgreSQL lives under DATA_DIR.
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);

    // npm's child is node itself (the script execs it: no shell in between to swallow the signal),
    // running the compiled code with source maps; PostgreSQL is node's child.
    const npm = p.child.pid!;
    const tree = descendants(npm);
    const node = tree.filter((pid) => commandLine(pid).includes('dist/src/start-all.js'));
    expect(node).toHaveLength(1);
    expect(commandLine(node[0]!)).toMatch(/^node --enable-source-maps --expose-gc .*dist\/src\/start-all\.js$/);
    expect(descendants(npm).filter((pid) => commandLine(pid).startsWith('sh '))).toEqual([]);
    const pg = postmaster(dataDir);
    expect(descendants(node[0]!)).toContain(pg.pid);
    expect(await listening(pg.port)).toBe(true);

    const signalledAt = Date.now();
    p.child.kill('SIGTERM');
    expect(await p.exited()).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(2 * graceMs + STOP_MARGIN_MS);
    expect(p.output()).toMatch(/"signal":"SIGTERM".*shutting down gracefully/);
    expect(p.output()).toMatch(/daemon stopped/);
    // npm exited after its child: nothing it started is left, PostgreSQL included.
    expect(tree.filter(alive).map(commandLine)).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    const ports = [Number(new URL(up.http).port), Number(up.grpc.split(':')[1]), pg.port, ...(up.metrics === null ? [] : [Number(new URL(up.metrics).port)])];
    expect(await Promise.all(ports.map((port) => listening(port)))).toEqual(ports.map(() => false));
  });
});
