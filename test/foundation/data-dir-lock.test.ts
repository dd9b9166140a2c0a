import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { spawnTs, grpcPortFrom, type Spawned } from '../support/processes';
import { lockDataDir, DataDirInUseError } from '../../src/store/data-dir-lock';
import { isPostmasterOf } from '../../src/store/embedded-postgres';

jest.setTimeout(180_000);

const running: Spawned[] = [];
afterAll(() => {
  for (const p of running.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('one daemon per DATA_DIR (embedded PostgreSQL)', () => {
  it('the lock is exclusive, names its holder, and is free again once released', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-lock-'));
    const first = await lockDataDir(dir);
    await expect(lockDataDir(dir)).rejects.toThrow(DataDirInUseError);
    // The same directory through another spelling of its path is the same lock.
    await expect(lockDataDir(path.join(dir, '.'))).rejects.toThrow(new RegExp(`in use by another running chainpay daemon \\(pid ${process.pid}\\)`));
    const other = await lockDataDir(fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-lock-')));
    await other.release();
    await first.release();
    const again = await lockDataDir(dir);
    await again.release();
  });

  it('a pid that is not a postgres of this data directory is not taken for its postmaster', () => {
    expect(isPostmasterOf(process.pid, '/tmp/x')).toBe(false);
    expect(isPostmasterOf(2 ** 22 + 12345, '/tmp/x')).toBe(false);
  });

  it('a second daemon on the same DATA_DIR is refused while the first runs; a stale postmaster.pid naming another process does not get it killed', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-twice-'));
    const env = { DATA_DIR: dataDir, GRPC_PORT: '0', DATABASE_URL: undefined };
    const first = spawnTs('src/main.ts', env);
    running.push(first);
    const port = grpcPortFrom(await first.waitFor(/gRPC server listening/, 120_000));
    const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(isPostmasterOf(postmaster, path.join(dataDir, 'postgres'))).toBe(true);

    const second = spawnTs('src/main.ts', env);
    running.push(second);
    expect(await second.exited()).toBe(78);
    expect(second.output()).toMatch(new RegExp(`DATA_DIR: .* is in use by another running chainpay daemon \\(pid ${first.child.pid}\\)`));
    // The first daemon and its PostgreSQL were left alone.
    expect(first.child.exitCode).toBeNull();
    expect(alive(postmaster)).toBe(true);
    expect(port).toBeGreaterThan(0);
    first.child.kill('SIGTERM');
    const code = await first.exited();
    if (code !== 0) console.log(first.output().slice(-4000));
    expect(code).toBe(0);

    // A stale postmaster.pid whose pid now belongs to an unrelated process.
    const bystander = spawn('sleep', ['120'], { stdio: 'ignore' });
    try {
      fs.writeFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), `${bystander.pid}\n${path.join(dataDir, 'postgres')}\n`);
      const third = spawnTs('src/main.ts', env);
      running.push(third);
      await Promise.race([third.waitFor(/gRPC server listening/, 120_000).catch(() => undefined), third.exited()]);
      expect(third.output()).toMatch(/postmaster.pid names a process that is not this PostgreSQL; leaving it alone/);
      expect(alive(bystander.pid!)).toBe(true);
      if (third.child.exitCode === null) {
        third.child.kill('SIGTERM');
        expect(await third.exited()).toBe(0);
      }
    } finally {
      bystander.kill('SIGKILL');
    }
  });
});
