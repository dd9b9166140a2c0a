import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from '../../src/cli/main';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { createMerchant, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { createInvoice } from '../invoices/helpers';
import { captureLogger, type LogLine } from '../webhooks/support';

/**
 * `devnet advance-time` is stored and lasts across restarts (issue 51): its answer and the daemon's
 * start say so, and `chainpay devnet reset-time` puts the clock back to real time (stored too).
 * What was scheduled while ahead keeps its time: never earlier.
 */
describe('chainpay devnet reset-time', () => {
  let db: TestDatabase;
  let dataDir: string;
  let stack: Stack | undefined;
  let m: MerchantCredentials;
  beforeAll(async () => {
    db = await createTestDatabase();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-reset-time-'));
    stack = await startStack({ database: db, dataDir });
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await run(args, {
      env: { CHAINPAY_GRPC_ADDR: stack!.grpcAddress, DATA_DIR: dataDir },
      stdout: { write: (s: string) => void (out += s) },
      stderr: { write: (s: string) => void (err += s) },
    });
    return { code, out, err };
  }

  const aheadSeconds = (): number => (stack!.daemon.clock.now().getTime() - Date.now()) / 1000;

  it('advance-time says the jump lasts; a restart starts ahead and warns; reset-time goes back, also after a restart', async () => {
    const advanced = await cli(['devnet', 'advance-time', '--seconds', '86401']);
    expect(advanced.code).toBe(0);
    expect(advanced.out).toMatch(/^offset_seconds\s+86401$/m);
    expect(advanced.out).toContain('86401 s ahead of real time, also after a restart');
    expect(advanced.out).toContain('chainpay devnet reset-time');
    // Created while ahead: due in 5 minutes of devnet time, a day from now in real time.
    const ahead = await createInvoice(stack!, m, { amount: '5', network: 'TRC20', lifetime_minutes: 5 });

    await stack!.stop();
    const captured = captureLogger();
    stack = await startStack({ database: db, dataDir, logger: captured.logger });
    expect(aheadSeconds()).toBeGreaterThan(86_000);
    const warning = captured.lines.find((l: LogLine) => l.msg.includes('devnet clock is ahead of real time'));
    expect(warning).toMatchObject({ offsetSeconds: 86401 });
    expect(warning!.msg).toContain('chainpay devnet reset-time');

    const reset = await cli(['devnet', 'reset-time', '--json']);
    expect(reset.code).toBe(0);
    expect(JSON.parse(reset.out)).toMatchObject({ offset_seconds: '0' });
    expect(Math.abs(Date.parse(JSON.parse(reset.out).now) - Date.now())).toBeLessThan(5_000);
    expect(Math.abs(aheadSeconds())).toBeLessThan(5);
    const human = await cli(['devnet', 'reset-time']);
    expect(human.out).toContain('follows real time again');

    // Scheduled while ahead, kept: the invoice is still pending (its expiry is a day away now)...
    const inv = (await signed(stack!, m, 'GET', `/v1/invoices/${ahead.uuid}`)).body;
    expect(inv.status).toBe('pending');
    expect(Date.parse(inv.expires_at) - Date.now()).toBeGreaterThan(86_000_000);
    // ...and new objects carry real time.
    const fresh = await createInvoice(stack!, m, { amount: '5', network: 'TRC20' });
    expect(Math.abs(Date.parse(fresh.created_at) - Date.now())).toBeLessThan(5_000);

    // Stored: a restart stays on real time, with no warning.
    await stack!.stop();
    const again = captureLogger();
    stack = await startStack({ database: db, dataDir, logger: again.logger });
    expect(Math.abs(aheadSeconds())).toBeLessThan(5);
    expect(again.lines.some((l: LogLine) => l.msg.includes('devnet clock is ahead'))).toBe(false);

    // The kept expiry still comes, at its own devnet time.
    await cli(['devnet', 'advance-time', '--seconds', String(86_401 + 301)]);
    await waitForStatus(stack!, m, ahead.uuid, 'expired', 15_000);
  });

  it('reset-time needs the operator token: a wrong one is refused and the clock stays where it is', async () => {
    await cli(['devnet', 'advance-time', '--seconds', '120']);
    const before = stack!.daemon.clock.offset();
    let err = '';
    const code = await run(['devnet', 'reset-time'], {
      env: { CHAINPAY_GRPC_ADDR: stack!.grpcAddress, DATA_DIR: dataDir, CHAINPAY_OPERATOR_TOKEN: 'not-the-operator-token' },
      stdout: { write: () => undefined },
      stderr: { write: (s: string) => void (err += s) },
    });
    expect(code).not.toBe(0);
    expect(err).toMatch(/unauthenticated|permission|token/i);
    expect(stack!.daemon.clock.offset()).toBe(before);
  });
});
