import { spawnSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { ensureBuilt } from '../support/dist';
import { ROOT } from '../support/processes';

jest.setTimeout(600_000);

/**
 * What the Dockerfile's runtime stage holds, built in a scratch directory: dist/, package.json and
 * package-lock.json, then `npm ci --omit=dev` (from the npm registry or its local cache; no
 * TypeScript, no tsx). `npm start` there must serve the API: nothing of what ships may need a dev
 * dependency or a file outside dist/ (the .proto files, the checkout assets, the derivation worker).
 */
describe('a production install (dist/ and production dependencies only)', () => {
  let scratch: string;
  let db: TestDatabase;
  let child: ReturnType<typeof spawn> | undefined;

  beforeAll(async () => {
    const dist = await ensureBuilt();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-production-'));
    fs.cpSync(dist, path.join(scratch, 'dist'), { recursive: true });
    for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(ROOT, file), path.join(scratch, file));
    db = await createTestDatabase('cp_production');
  }, 600_000);

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await db?.drop();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('installs with npm ci --omit=dev (prepare skips the build: no sources), runs the chainpay CLI and answers GET /v1/networks', async () => {
    const install = spawnSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], { cwd: scratch, encoding: 'utf8', timeout: 500_000 });
    expect({ status: install.status, stderr: install.status === 0 ? '' : install.stderr }).toEqual({ status: 0, stderr: '' });
    expect(install.stdout).toContain('prepare: no sources here');
    // (TypeScript itself is there: a peer dependency of @solana/codecs.)
    for (const dev of ['tsx', 'jest', '@swc/core', 'hardhat']) expect(fs.existsSync(path.join(scratch, 'node_modules', dev))).toBe(false);

    const help = spawnSync('npm', ['run', '--silent', 'chainpay', '--', 'help'], { cwd: scratch, encoding: 'utf8', timeout: 60_000 });
    expect({ status: help.status, stderr: help.stderr }).toEqual({ status: 0, stderr: '' });
    expect(help.stdout).toMatch(/^usage: chainpay <command>/);

    const dataDir = path.join(scratch, 'data');
    child = spawn('npm', ['start'], {
      cwd: scratch,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, DATABASE_URL: db.url, GRPC_PORT: '0', HTTP_PORT: '0', HTTP_HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    const up = await new Promise<{ http: string }>((resolve, reject) => {
      const poll = setInterval(() => {
        const line = out.split('\n').find((l) => l.includes('chainpay is up'));
        if (line) {
          clearInterval(poll);
          resolve(JSON.parse(line) as { http: string });
        }
      }, 100);
      void exited.then((code) => {
        clearInterval(poll);
        reject(new Error(`npm start exited (${code}) before it was up:\n${out.slice(-3000)}`));
      });
    });
    const res = await fetch(`${up.http}/v1/networks`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { networks: unknown[] }).networks).toHaveLength(6);
    // Deposit addresses were derived on the derivation thread (dist/src/chains/derivation/worker.js).
    expect(out).toMatch(/"network":"TRC20","added":\d+.*address pool refilled/);
    // The checkout page's assets are read from dist/ at startup (the .proto files of gRPC reflection too).
    const css = await fetch(`${up.http}/pay/assets/checkout.css`);
    expect(css.status).toBe(200);
    expect(await css.text()).toBe(fs.readFileSync(path.join(ROOT, 'gateway/checkout/assets/checkout.css'), 'utf8'));

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
