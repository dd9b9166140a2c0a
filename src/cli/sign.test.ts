import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run, type CliIO } from './main';

const SECRET = 'sk_test_sëcret';
const hmac = (body: Buffer | string): string => createHmac('sha256', SECRET).update(body).digest('hex');

async function sign(argv: string[], io: Partial<CliIO> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run(['sign', ...argv], {
    env: {},
    ...io,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  return { code, stdout, stderr };
}

const UNICODE_BODY = '{"amount":"10.50","title":"Café ☕ — 支付 💸","note":"it\'s"}';

describe('chainpay sign', () => {
  it('signs a unicode --body exactly as node:crypto does over its UTF-8 bytes', async () => {
    const r = await sign(['--secret', SECRET, '--body', UNICODE_BODY]);
    expect(r).toEqual({ code: 0, stdout: `${hmac(Buffer.from(UNICODE_BODY, 'utf8'))}\n`, stderr: '' });
  });

  it('signs the empty body (a GET) as the empty string', async () => {
    const expected = hmac('');
    expect((await sign(['--secret', SECRET, '--body', ''])).stdout).toBe(`${expected}\n`);
    expect((await sign(['--secret', SECRET], { stdin: Buffer.alloc(0) })).stdout).toBe(`${expected}\n`);
    // No stdin at all (a terminal): also the empty body.
    expect((await sign(['--secret', SECRET])).stdout).toBe(`${expected}\n`);
  });

  it('reads stdin bytes untouched (a trailing newline stays signed) and the secret from CHAINPAY_API_SECRET', async () => {
    const body = Buffer.from(`${UNICODE_BODY}\n`, 'utf8');
    async function* chunks(): AsyncIterable<Buffer> {
      yield body.subarray(0, 7); // split inside a multi-byte character on purpose
      yield body.subarray(7);
    }
    const r = await sign(['--json'], { env: { CHAINPAY_API_SECRET: SECRET }, stdin: chunks() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ signature: hmac(body) });
    expect(hmac(body)).not.toBe(hmac(UNICODE_BODY));
  });

  it('signs --body-file bytes as they are on disk', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-sign-')), 'body.json');
    const bytes = Buffer.concat([Buffer.from(UNICODE_BODY, 'utf8'), Buffer.from([0x0d, 0x0a])]);
    fs.writeFileSync(file, bytes);
    const r = await sign(['--secret', SECRET, '--body-file', file, '--curl', 'https://pay.example/v1/invoices', '--key', 'pk_1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`-H 'X-Service-Signature: ${hmac(bytes)}'`);
    expect(r.stdout).toContain(`--data-binary @'${file}'`);
    fs.rmSync(path.dirname(file), { recursive: true });
  });

  it('--curl prints a command whose body word is byte-identical to the signed body (checked through bash)', async () => {
    const r = await sign(['--secret', SECRET, '--body', UNICODE_BODY, '--curl', 'https://pay.example/v1/invoices', '--key', 'pk_live_1']);
    expect(r.code).toBe(0);
    const cmd = r.stdout;
    expect(cmd).toMatch(/^curl -sS -X POST 'https:\/\/pay\.example\/v1\/invoices'/);
    expect(cmd).toContain("-H 'Content-Type: application/json'");
    expect(cmd).toContain("-H 'X-Service-Key: pk_live_1'");
    expect(cmd).toContain(`-H 'X-Service-Signature: ${hmac(Buffer.from(UNICODE_BODY, 'utf8'))}'`);
    // Replace curl with printf to see exactly what the shell would pass as --data-binary.
    const word = cmd.slice(cmd.indexOf('--data-binary ') + '--data-binary '.length).trimEnd();
    const passed = execFileSync('bash', ['-c', `printf '%s' ${word}`]);
    expect(passed.equals(Buffer.from(UNICODE_BODY, 'utf8'))).toBe(true);
  });

  it('--curl for the empty body is a GET without Content-Type or data', async () => {
    const r = await sign(['--secret', SECRET, '--body', '', '--curl', 'https://pay.example/v1/invoices/abc', '--key', 'pk_1', '--json']);
    const doc = JSON.parse(r.stdout);
    expect(doc.signature).toBe(hmac(''));
    expect(doc.curl).toMatch(/^curl -sS -X GET /);
    expect(doc.curl).not.toContain('Content-Type');
    expect(doc.curl).not.toContain('--data-binary');
  });

  it('usage errors exit 2: no secret, both body sources, --curl without a key', async () => {
    expect((await sign(['--body', '{}'])).code).toBe(2);
    expect((await sign(['--secret', 's', '--body', '{}', '--body-file', 'x'])).code).toBe(2);
    const r = await sign(['--secret', 's', '--body', '{}', '--curl', 'https://x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --curl needs --key/);
  });
});
