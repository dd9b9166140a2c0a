import { spawnSync } from 'node:child_process';
import path from 'node:path';

const BIN = path.join(__dirname, 'bin.js');

describe('bin.js (the package bin, a real process)', () => {
  it('runs `help` (exit 0, usage on stdout) and keeps the exit code of a usage error (2)', () => {
    const help = spawnSync(process.execPath, [BIN, 'help'], { encoding: 'utf8', timeout: 20_000 });
    expect(help.stderr).toBe('');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: chainpay <command>/);
    expect(help.stdout).toContain('chainpay devnet pay --network CODE --to ADDR --amount A');

    const bad = spawnSync(process.execPath, [BIN, 'merchant', 'create'], { encoding: 'utf8', timeout: 20_000 });
    expect(bad.status).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^error: --name is required/);
  });
});
