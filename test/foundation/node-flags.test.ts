import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { execArray, startScript, type StartScript } from '../support/start-scripts';

/**
 * The Node flags of the three start scripts (package.json) are what production runs with: the
 * same in docker-compose.yml, accepted by this Node, and in effect (the young generation starts at
 * the semi-space size they ask for). The bench reads them from package.json too
 * (test/bench/support/context.ts scriptNodeFlags), so what it measures is what ships.
 */
const root = path.resolve(__dirname, '../..');
const compose = fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
const split = startScript;

const MiB = 2 ** 20;

describe('Node flags of npm start, start:daemon and start:gateway', () => {
  it.each([
    ['start', 'dist/src/start-all.js'],
    ['start:daemon', 'dist/src/main.js'],
    ['start:gateway', 'dist/gateway/main.js'],
  ] as const)('%s runs %s with source maps, flags this Node accepts, and a young generation of at least 16 MiB', (script, entry) => {
    const { flags, entry: actual } = split(script);
    expect(actual).toBe(entry);
    expect(flags[0]).toBe('--enable-source-maps');
    expect(flags).toContain('--min-semi-space-size=16');
    const probe = spawnSync(process.execPath, [...flags, '-e', "process.stdout.write(String(require('v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size))"], {
      encoding: 'utf8',
    });
    expect({ status: probe.status, stderr: probe.stderr }).toEqual({ status: 0, stderr: '' });
    expect(Number(probe.stdout)).toBeGreaterThanOrEqual(16 * MiB);
    // Without the flags the young generation starts far smaller: the probe measures the flags.
    const bare = spawnSync(process.execPath, ['-e', "process.stdout.write(String(require('v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size))"], { encoding: 'utf8' });
    expect(Number(bare.stdout)).toBeLessThan(16 * MiB);
  });

  it("the daemon fixes V8's old-generation growing factor at 3, the gateway leaves it to V8", () => {
    // After a full GC while idle, V8 measures a slow mutator and sets the next limit only ~10% above
    // the live heap, so the daemon (whose heap is mostly long-lived actors) marked them all again
    // soon after load came back (docs/performance.md, Node/V8 flags: bench scenarios 1 and 2).
    expect(split('start').flags).toContain('--heap-growing-percent=200');
    expect(split('start:daemon').flags).toContain('--heap-growing-percent=200');
    expect(split('start:gateway').flags.some((f) => f.startsWith('--heap-growing-percent'))).toBe(false);
  });

  it("the gateway turns V8's allocation-site pretenuring off, the daemon keeps it", () => {
    // Under GETs the gateway's pretenured short-lived objects filled its old generation: a major GC
    // every ~0.3 s (docs/performance.md, Node/V8 flags: bench scenario 2). The daemon's actors do live long.
    expect(split('start:gateway').flags).toContain('--no-allocation-site-pretenuring');
    expect(split('start:daemon').flags).not.toContain('--no-allocation-site-pretenuring');
  });

  it('docker-compose.yml runs both daemons as start:daemon and the gateway as start:gateway; the image runs as npm start', () => {
    const command = (script: StartScript): string => `command: ${execArray(script)}`;
    expect(compose.split(command('start:daemon')).length - 1).toBe(2);
    expect(compose.split(command('start:gateway')).length - 1).toBe(1);
    // No service runs a start script's entry with other flags.
    expect(compose.match(/command: \[[^\]]*"(dist\/src\/main\.js|dist\/gateway\/main\.js)"\]/g)).toHaveLength(3);
    expect(dockerfile).toContain(`\nCMD ${execArray('start')}\n`);
  });
});
