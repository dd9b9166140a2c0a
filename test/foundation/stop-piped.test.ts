import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt } from '../support/dist';
import { ROOT } from '../support/processes';
import { alive, commandLine, descendants } from '../support/process-tree';

jest.setTimeout(300_000);

let shell: ChildProcess | undefined;
afterAll(() => {
  if (shell && shell.exitCode === null) process.kill(-shell.pid!, 'SIGKILL');
});

beforeAll(() => ensureBuilt(), 300_000);

/** The pipeline's reader: passes nothing on; at "chainpay is up" it prints that line to stderr and exits. */
const READER = `let s = ''; process.stdin.on('data', (c) => { s += c; const l = s.split('\\n').find((x) => x.includes('chainpay is up')); if (l) { process.stderr.write(l + '\\n'); process.exit(0); } });`;

/**
 * `npm start | tee log`, then Ctrl-C: the terminal sends SIGINT to the whole foreground process
 * group (bash, npm, node, the embedded PostgreSQL; tee exits at once), and npm forwards its own copy
 * to node. Every log line written after that fails with EPIPE. The process must still drain once and
 * exit; before, the duplicate SIGINT read as a second Ctrl-C (exit now), and the exit's log flush
 * could retry its write to the closed pipe every 100 ms forever, with PostgreSQL left running.
 * Here the reader exits before the Ctrl-C, so that every write after it fails.
 */
describe('`npm start | reader`: the reader goes, then one Ctrl-C', () => {
  it('drains once, exits 0 and leaves no process behind', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-stop-piped-'));
    // detached: a process group of its own, as a shell gives a pipeline. A real pipe (bash's), as
    // under a terminal; the exit status is npm's.
    shell = spawn('bash', ['-c', 'npm start | node -e "$READER"; exit ${PIPESTATUS[0]}'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, READER, DATA_DIR: dataDir, GRPC_PORT: '0', HTTP_PORT: '0', HTTP_HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    const exited = new Promise<number | null>((resolve) => shell!.once('exit', resolve));
    let err = '';
    shell.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    const up = await new Promise<{ http: string }>((resolve, reject) => {
      const poll = setInterval(() => {
        const line = err.split('\n').find((l) => l.includes('chainpay is up'));
        if (line) {
          clearInterval(poll);
          resolve(JSON.parse(line) as { http: string });
        }
      }, 100);
      void exited.then((code) => {
        clearInterval(poll);
        reject(new Error(`the pipeline exited (${code}) before chainpay was up:\n${err.slice(-3000)}`));
      });
    });
    expect((await fetch(`${up.http}/v1/networks`)).status).toBe(200);
    const tree = descendants(shell.pid!);
    expect(tree.some((pid) => commandLine(pid).includes('/postgres -D'))).toBe(true);
    // The reader has exited: the pipe has no reader left.
    expect(tree.filter((pid) => commandLine(pid).startsWith('node -e')).filter(alive)).toEqual([]);

    // One Ctrl-C: SIGINT to the process group.
    process.kill(-shell.pid!, 'SIGINT');
    const signalledAt = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), 30_000)))]);
    clearTimeout(timer);
    // 0: it drained (a second Ctrl-C's "exit now" is 130). PostgreSQL received the Ctrl-C too and
    // shut down on its own meanwhile (fast shutdown), yet the drain completes.
    expect(code).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(30_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(tree.filter(alive).map(commandLine)).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  });
});
