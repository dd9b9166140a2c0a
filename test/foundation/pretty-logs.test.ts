import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chooseLogFormat, LogFormatError, prettyMessage } from '../../src/lib/log-format';
import { loadConfig } from '../../src/config/config';
import { ensureBuilt } from '../support/dist';

jest.setTimeout(120_000);

/**
 * Logs are readable at a terminal (issue 51): pino-pretty when stdout is a TTY in development, JSON
 * when it is not, under NODE_ENV=production, or with LOG_FORMAT=json. "chainpay is up" (a banner
 * line) stands out. The processes run the compiled loggers (dist/) with stdout on a pseudo-terminal
 * made by util-linux `script`, or on a pipe.
 */
const ROOT = path.resolve(__dirname, '..', '..');

/** Logs one banner line through the daemon's logger and one line through the gateway's (a script file: no shell quoting). */
function logsScript(): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-logs-')), 'logs.js');
  const dist = (p: string): string => JSON.stringify(path.join(ROOT, 'dist', p));
  fs.writeFileSync(
    file,
    `const { createLogger } = require(${dist('src/observability/logger')});
const { createGatewayLogger } = require(${dist('gateway/logger')});
createLogger('info', 'chainpay').info({ banner: true, http: 'http://127.0.0.1:8080', api_secret: 'sk_hidden' }, 'chainpay is up at http://127.0.0.1:8080');
createGatewayLogger('info').info({ host: '127.0.0.1', port: 8080 }, 'gateway listening');
`,
  );
  return file;
}

function runLogs(env: Record<string, string>, tty: boolean): Promise<string> {
  const script = logsScript();
  const [cmd, args] = tty ? ['script', ['-qec', `node ${script}`, '/dev/null']] : [process.execPath, [script]];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd as string, args as string[], { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => void (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => void (out += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${out}`))));
  });
}

const jsonLines = (out: string): unknown[] =>
  out
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as unknown);

describe('log format', () => {
  beforeAll(() => ensureBuilt(), 300_000);

  it('chooses pretty only at a terminal outside production, unless LOG_FORMAT says', () => {
    expect(chooseLogFormat({}, true)).toBe('pretty');
    expect(chooseLogFormat({}, false)).toBe('json');
    expect(chooseLogFormat({ NODE_ENV: 'production' }, true)).toBe('json');
    expect(chooseLogFormat({ LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(chooseLogFormat({ LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
    expect(chooseLogFormat({ LOG_FORMAT: '' }, true)).toBe('pretty');
    expect(() => chooseLogFormat({ LOG_FORMAT: 'yaml' }, true)).toThrow(LogFormatError);
    expect(() => loadConfig({ LOG_FORMAT: 'yaml' })).toThrow(/LOG_FORMAT/);
    expect(prettyMessage({ msg: 'chainpay is up', banner: true }, 'msg', true)).toBe('\u001b[1;32mchainpay is up\u001b[0m');
    expect(prettyMessage({ msg: 'gateway listening' }, 'msg', true)).toBe('gateway listening');
  });

  it('at a terminal: readable lines, the banner in bold green, its URL on its own line, secrets still redacted; no JSON', async () => {
    const out = await runLogs({}, true);
    expect(out).not.toMatch(/^\{/m);
    expect(out).toContain('\u001b[1;32mchainpay is up at http://127.0.0.1:8080\u001b[0m');
    expect(out).toMatch(/^ +\S*http\S*: "http:\/\/127\.0\.0\.1:8080"/m);
    expect(out).not.toMatch(/service\S*: /);
    expect(out).toContain('gateway listening');
    expect(out).toContain('[redacted]');
    expect(out).not.toContain('sk_hidden');
  });

  it('JSON on a pipe, at a terminal with LOG_FORMAT=json, and under NODE_ENV=production', async () => {
    for (const [env, tty] of [
      [{}, false],
      [{ LOG_FORMAT: 'json' }, true],
      [{ NODE_ENV: 'production' }, true],
    ] as const) {
      const lines = jsonLines(await runLogs(env, tty));
      expect({ env, tty, lines: lines.map((l) => (l as { msg: string }).msg) }).toEqual({ env, tty, lines: ['chainpay is up at http://127.0.0.1:8080', 'gateway listening'] });
      expect(lines[0]).toMatchObject({ banner: true, http: 'http://127.0.0.1:8080', api_secret: '[redacted]' });
    }
  });
});
