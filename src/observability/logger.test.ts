import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');

/**
 * Runs a script that logs through one of our batched stdout loggers; collects stdout with the time
 * each chunk arrived.
 */
function run(script: string): { lines: () => Array<{ msg: string; n?: number }>; firstChunkAt: Promise<number>; exit: Promise<number | null>; started: number } {
  const started = Date.now();
  const child = spawn(process.execPath, [TSX, '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  let first!: (at: number) => void;
  const firstChunkAt = new Promise<number>((r) => (first = r));
  child.stdout.on('data', (chunk: Buffer) => {
    if (out === '') first(Date.now());
    out += chunk.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return {
    lines: () =>
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    firstChunkAt,
    exit,
    started,
  };
}

describe.each([
  ['daemon', `const { createLogger } = require('./src/observability/logger'); const log = createLogger('info');`],
  ['gateway', `const { createGatewayLogger } = require('./gateway/logger'); const log = createGatewayLogger('info');`],
])('%s logger: batched stdout', (_name, make) => {
  it('a few lines (less than a batch) are written without waiting for more, and the process keeps running', async () => {
    // Logs 3 short lines, then stays alive for 3 s: they must show up by the periodic flush, not at exit.
    const p = run(`${make} for (let n = 0; n < 3; n++) log.info({ n }, 'line'); setTimeout(() => log.info('bye'), 3000);`);
    const at = await p.firstChunkAt;
    const lines = p.lines();
    expect(lines.map((l) => l.n)).toEqual([0, 1, 2]);
    expect(at).toBeLessThan(p.started + 2_900); // well before the 'bye' and the exit
    expect(await p.exit).toBe(0);
    expect(p.lines().map((l) => l.msg)).toEqual(['line', 'line', 'line', 'bye']);
  }, 20_000);

  it('every line logged before a normal exit or an uncaught exception is written', async () => {
    const p = run(`${make} for (let n = 0; n < 5000; n++) log.info({ n }, 'line'); process.exit(0);`);
    expect(await p.exit).toBe(0);
    expect(p.lines().map((l) => l.n)).toEqual(Array.from({ length: 5000 }, (_, n) => n));
    const q = run(`${make} for (let n = 0; n < 50; n++) log.info({ n }, 'line'); setImmediate(() => { throw new Error('boom'); });`);
    expect(await q.exit).toBe(1);
    expect(q.lines().map((l) => l.n)).toEqual(Array.from({ length: 50 }, (_, n) => n));
  }, 20_000);
});
