import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPEAT_WINDOW_MS } from './stop-on-signals';

/**
 * stopOnSignals in a real process (signals cannot be sent to a Jest worker's own code): a child
 * whose stop() takes `stopMs` (never resolving when null) and logs JSON lines to stdout.
 */
const ROOT = path.resolve(__dirname, '..');

interface Run {
  readonly signal: (name: NodeJS.Signals) => void;
  readonly exit: Promise<{ code: number | null; ms: number; lines: Array<{ msg: string } & Record<string, unknown>> }>;
  readonly ready: Promise<void>;
}

function run(stopMs: number | null, deadlineMs: number): Run {
  const script = `
    const { stopOnSignals } = require(${JSON.stringify(path.join(__dirname, 'stop-on-signals.ts'))});
    const log = (level) => (fields, msg) => process.stdout.write(JSON.stringify({ level, ...fields, msg }) + '\\n');
    const logger = { info: log('info'), warn: log('warn'), error: log('error') };
    const stopMs = ${JSON.stringify(stopMs)};
    stopOnSignals({
      logger,
      deadlineMs: ${deadlineMs},
      stop: () => new Promise((resolve) => { if (stopMs !== null) setTimeout(() => { logger.info({}, 'stopped'); resolve(); }, stopMs); }),
    });
    setInterval(() => {}, 1000);
    logger.info({}, 'ready');
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let signalledAt = 0;
  let onReady: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (out.includes('"ready"')) onReady();
  });
  const exit = new Promise<{ code: number | null; ms: number; lines: Array<{ msg: string } & Record<string, unknown>> }>((resolve) =>
    child.once('close', (code) =>
      resolve({
        code,
        ms: performance.now() - signalledAt,
        lines: out
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { msg: string }),
      }),
    ),
  );
  return {
    ready,
    exit,
    signal: (name) => {
      if (signalledAt === 0) signalledAt = performance.now();
      child.kill(name);
    },
  };
}

const messages = (lines: Array<{ msg: string }>): string[] => lines.map((l) => l.msg);

describe('stopOnSignals (a real process)', () => {
  it('one Ctrl-C delivered twice (by the terminal and again by npm) drains once and exits 0', async () => {
    const p = run(1_500, 20_000);
    await p.ready;
    p.signal('SIGINT');
    await new Promise((r) => setTimeout(r, 30));
    p.signal('SIGINT');
    const { code, ms, lines } = await p.exit;
    expect(code).toBe(0);
    expect(messages(lines)).toEqual(['ready', 'shutting down gracefully', 'stopped']);
    expect(lines[1]).toMatchObject({ signal: 'SIGINT', deadlineMs: 20_000 });
    // It waited for the drain.
    expect(ms).toBeGreaterThanOrEqual(1_400);
  }, 20_000);

  it('a second signal after the repeat window exits at once with 128 + its number, without waiting for the drain', async () => {
    const p = run(30_000, 60_000);
    await p.ready;
    p.signal('SIGTERM');
    await new Promise((r) => setTimeout(r, REPEAT_WINDOW_MS + 200));
    p.signal('SIGTERM');
    const { code, ms, lines } = await p.exit;
    expect(code).toBe(128 + 15);
    expect(messages(lines)).toEqual(['ready', 'shutting down gracefully', 'second signal: exiting now']);
    expect(ms).toBeLessThan(10_000);
  }, 20_000);

  it('a drain that does not finish by the deadline ends the process with 1', async () => {
    const p = run(null, 800);
    await p.ready;
    p.signal('SIGTERM');
    const { code, ms, lines } = await p.exit;
    expect(code).toBe(1);
    expect(messages(lines)).toEqual(['ready', 'shutting down gracefully', 'shutdown did not finish in time: exiting']);
    expect(ms).toBeGreaterThanOrEqual(750);
    expect(ms).toBeLessThan(8_000);
  }, 20_000);
});
