import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnTs, type Spawned } from '../support/processes';

jest.setTimeout(180_000);

const running: Spawned[] = [];
afterAll(() => {
  for (const p of running.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
});

describe('`npm start` (src/start-all.ts): daemon and gateway in one process', () => {
  it('starts on a fresh DATA_DIR with the embedded defaults, serves GET /v1/networks through the gateway, exits 0 on SIGTERM', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-start-all-'));
    const p = spawnTs('src/start-all.ts', { DATA_DIR: dataDir, GRPC_PORT: '0', HTTP_PORT: '0', HTTP_HOST: '127.0.0.1', DATABASE_URL: undefined });
    running.push(p);
    const up = JSON.parse(await p.waitFor(/chainpay is up/, 150_000)) as { http: string; grpc: string };
    expect(up.http).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(up.http).not.toMatch(/:0$/);
    const res = await fetch(`${up.http}/v1/networks`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { networks: { code: string }[] };
    expect(body.networks.map((n) => n.code)).toEqual(['TRC20', 'BEP20', 'TON', 'POLYGON', 'ARBITRUM', 'SOLANA']);
    // The embedded PostgreSQL lives under DATA_DIR.
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);

    p.child.kill('SIGTERM');
    expect(await p.exited()).toBe(0);
    expect(p.output()).toMatch(/daemon stopped/);
    // PostgreSQL was stopped with it.
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  });
});
