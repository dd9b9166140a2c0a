import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The daemon's and the gateway's loggers when stdout's reader has gone (`npm start | tee log`, then
 * Ctrl-C ends tee): a process exiting with a line still in its batch must exit, not retry the write
 * to the closed pipe every 100 ms forever (sonic-boom 4's flushSync did that on EPIPE).
 *
 * A real pipe, made by bash: Node's own stdio 'pipe' is a socket pair, on which the periodic flush's
 * empty write already fails with EPIPE, which hides the case (on a pipe an empty write succeeds).
 */
describe.each([
  ['daemon', `const { createLogger } = require('./src/observability/logger'); const log = createLogger('info');`],
  ['gateway', `const { createGatewayLogger } = require('./gateway/logger'); const log = createGatewayLogger('info');`],
])('%s logger: exit with a closed stdout pipe', (_name, make) => {
  it('exits promptly when the last batch cannot be written (EPIPE)', () => {
    // 'first' goes out with the periodic flush and `head` exits after reading it; 'last' is still in
    // the batch when the process exits in the same tick, a second later.
    const script = `
      ${make}
      log.info('first');
      setTimeout(() => { log.info('last'); process.exit(0); }, 1000);
    `;
    // A hung node is killed after 10 s (exit status 137), so it is never left behind.
    const run = spawnSync('bash', ['-c', 'timeout -s KILL 10 node --import tsx -e "$SCRIPT" | head -c 1 >/dev/null; echo "node exited ${PIPESTATUS[0]}"'], {
      cwd: ROOT,
      env: { ...process.env, SCRIPT: script },
      encoding: 'utf8',
      timeout: 25_000,
    });
    expect({ error: run.error?.message, stdout: run.stdout.trim() }).toEqual({ error: undefined, stdout: 'node exited 0' });
  }, 30_000);
});
