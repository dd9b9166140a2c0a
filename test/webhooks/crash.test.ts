import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { spawnTs, grpcPortFrom, type Spawned } from '../support/processes';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { eventually } from '../support/stack';
import { connect, createShop, createInvoice, pay, waitInvoice } from './stack';
import { makeCert, Receiver, verifyServiceSignature, verifyStandardWebhook, type TestCert } from './support';

jest.setTimeout(60_000);

/** The real daemon process (src/main.ts), trusting the receiver's CA the production way. */
async function startDaemonProcess(env: Record<string, string>): Promise<{ proc: Spawned; plane: ReturnType<typeof connect> }> {
  const proc = spawnTs('src/main.ts', env);
  const port = grpcPortFrom(await proc.waitFor(/gRPC server listening/));
  const token = fs.readFileSync(path.join(env.DATA_DIR!, 'operator-token'), 'utf8').trim();
  return { proc, plane: connect(`127.0.0.1:${port}`, token) };
}

describe('webhooks survive a SIGKILL between commit and delivery', () => {
  let cert: TestCert;
  let receiver: Receiver;
  let db: TestDatabase;
  let sql: Client;
  const procs: Spawned[] = [];
  beforeAll(async () => {
    cert = makeCert();
    receiver = await Receiver.start(cert);
    db = await createTestDatabase();
    sql = new Client({ connectionString: db.url });
  });
  afterAll(async () => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await sql?.end().catch(() => undefined);
    await receiver?.down();
    await db?.drop();
  });

  it('an event whose delivery was in flight is delivered after restart', async () => {
    const env = {
      DATABASE_URL: db.url,
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-crash-')),
      GRPC_PORT: '0',
      DEVNET_BLOCK_MS: '0',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
      NODE_EXTRA_CA_CERTS: cert.certFile,
    };
    const first = await startDaemonProcess(env);
    procs.push(first.proc);
    expect(first.proc.output()).toMatch(/WEBHOOK_ALLOW_PRIVATE_TARGETS=1: the webhook address guard is OFF/);

    // The receiver takes the request and never answers: the attempt is in flight, not committed.
    receiver.reply = () => 'hang';
    const shop = await createShop(first.plane, receiver.url('/hook'));
    const inv = await createInvoice(first.plane, shop, { amount: '7', metadata_json: '{"crash":true}' });
    await pay(first.plane, inv);
    await waitInvoice(first.plane, shop, inv.uuid, 'confirming');
    const inFlight = await eventually(async () => receiver.at('/hook')[0], 10_000, 'the in-flight delivery');
    first.plane.close();
    first.proc.child.kill('SIGKILL');
    await first.proc.exited();

    await sql.connect();
    const row = async (): Promise<{ status: string; attempts: number; logged: string }> =>
      (await sql.query(`select status, attempts, (select count(*) from webhook_attempts a where a.event_id = e.id) as logged from outbox_events e where id = $1`, [inFlight.json.id])).rows[0];
    // Committed event, uncommitted attempt: still pending, nothing logged.
    expect(await row()).toEqual({ status: 'pending', attempts: 0, logged: '0' });

    receiver.reply = () => ({ status: 200 });
    const second = await startDaemonProcess(env);
    procs.push(second.proc);
    const delivered = await eventually(async () => receiver.at('/hook')[1], 15_000, 'delivery after restart');
    expect(delivered.json.id).toBe(inFlight.json.id);
    expect(delivered.body.equals(inFlight.body)).toBe(true);
    expect(delivered.json).toMatchObject({ type: 'invoice.confirming', data: { uuid: inv.uuid, metadata: { crash: true } } });
    expect(verifyServiceSignature(shop.apiSecret, delivered.body, delivered.headers['x-service-signature'])).toBe(true);
    expect(verifyStandardWebhook(shop.webhookSecret, delivered.headers, delivered.body)).toBe(true);
    await eventually(async () => ((await row()).status === 'delivered' ? true : undefined), 5_000, 'delivered row');
    expect(await row()).toEqual({ status: 'delivered', attempts: 1, logged: '1' });
    second.plane.close();
    second.proc.child.kill('SIGTERM');
    expect(await second.proc.exited()).toBe(0);
  });
});
