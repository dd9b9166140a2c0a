import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHmac } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { Client } from 'pg';
import { spawnTs, grpcPortFrom, ROOT, type Spawned } from '../support/processes';
import { rpc } from '../support/stack';
import { listServices } from '../support/reflection';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { MerchantServiceClient, type CreateMerchantResponse } from '../../src/grpc/generated/chainpay/v1/merchants';
import { InvoiceServiceClient } from '../../src/grpc/generated/chainpay/v1/invoices';

jest.setTimeout(120_000);

/** `buf curl` (the @bufbuild/buf npm package) over h2c, resolving the schema by server reflection. */
async function bufCurl(address: string, method: string, body: string): Promise<unknown> {
  const buf = path.join(ROOT, 'node_modules/.bin/buf');
  const { stdout } = await promisify(execFile)(buf, ['curl', '--protocol', 'grpc', '--http2-prior-knowledge', '-d', body, `http://${address}/${method}`], { timeout: 30_000 });
  return JSON.parse(stdout);
}

describe('daemon process: server reflection and graceful shutdown with calls in flight', () => {
  let db: TestDatabase;
  let proc: Spawned | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
    await db?.drop();
  });

  it('lists the chainpay services and grpc.health.v1.Health over reflection (buf curl calls Check); SIGTERM during CreateInvoice calls: each completes or is absent, exit 0', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-shutdown-'));
    proc = spawnTs('src/main.ts', { DATABASE_URL: db.url, DATA_DIR: dataDir, GRPC_PORT: '0', DEVNET_BLOCK_MS: '0' });
    const address = `127.0.0.1:${grpcPortFrom(await proc.waitFor(/gRPC server listening/))}`;

    const services = await listServices(address);
    for (const s of ['Devnet', 'Invoice', 'Checkout', 'Merchant', 'Network', 'Operator', 'Withdrawal', 'Event', 'Dashboard', 'DashboardUser']) expect(services).toContain(`chainpay.v1.${s}Service`);
    expect(services).toContain('grpc.health.v1.Health');
    // A generic client finds the health service by reflection alone (its schema has a map, which
    // protobufjs names unlike protoc: see src/grpc/reflection-schema.ts).
    expect(await bufCurl(address, 'grpc.health.v1.Health/Check', '{}')).toEqual({ status: 'SERVING' });
    expect(await bufCurl(address, 'grpc.health.v1.Health/Check', '{"service":"chainpay.watcher.TON"}')).toEqual({ status: 'SERVING' });
    const list = (await bufCurl(address, 'grpc.health.v1.Health/List', '{}')) as { statuses: Record<string, { status: string }> };
    expect(Object.keys(list.statuses).sort()).toEqual(['', ...['ARBITRUM', 'BEP20', 'POLYGON', 'SOLANA', 'TON', 'TRC20'].map((n) => `chainpay.watcher.${n}`)]);

    const operator = new grpc.Metadata();
    operator.set('authorization', `Bearer ${fs.readFileSync(path.join(dataDir, 'operator-token'), 'utf8').trim()}`);
    const merchants = new MerchantServiceClient(address, grpc.credentials.createInsecure());
    const created = await rpc<CreateMerchantResponse>((cb) => merchants.createMerchant({ name: 'Shutdown shop' }, operator, cb));
    merchants.close();
    const apiKey = created.merchant!.api_key;

    const invoices = new InvoiceServiceClient(address, grpc.credentials.createInsecure(), { 'grpc.max_metadata_size': 256 * 1024 });
    const N = 30;
    let signalled = false;
    const calls = Array.from({ length: N }, (_, i) => {
      const orderId = `shutdown-${i}`;
      const body = JSON.stringify({ amount: '10', network: i % 2 ? 'TON' : 'TRC20', order_id: orderId });
      const md = new grpc.Metadata();
      md.set('x-service-key', apiKey);
      md.set('x-service-signature', createHmac('sha256', created.api_secret).update(body).digest('hex'));
      md.set('x-signed-body-bin', Buffer.from(body));
      return rpc<{ invoice?: { uuid: string; order_id?: string; address?: string } }>((cb) => invoices.createInvoice({ amount: '10' }, md, cb)).then(
        (res) => ({ orderId, ok: true as const, uuid: res.invoice!.uuid, afterSignal: signalled }),
        (err: grpc.ServiceError) => ({ orderId, ok: false as const, code: err.code, afterSignal: signalled }),
      );
    });
    // SIGTERM as soon as the first call is answered: the others are in flight on the server.
    await Promise.race(calls);
    signalled = true;
    proc.child.kill('SIGTERM');
    const results = await Promise.all(calls);
    invoices.close();
    const code = await proc.exited();
    // A process that died of a signal (a native abort prints its FATAL ERROR) says so here.
    expect({ code, signal: proc.child.signalCode, tail: code === 0 ? '' : proc.output().slice(-3000) }).toEqual({ code: 0, signal: null, tail: '' });
    expect(proc.output()).toMatch(/daemon stopped/);
    // A first start is no recovery: the database was never unreachable.
    expect(proc.output()).not.toMatch(/database reachable again/);

    const completed = results.filter((r) => r.ok);
    const refused = results.filter((r) => !r.ok);
    // Calls the server had taken finished after the signal, they were not cut off.
    expect(completed.filter((r) => r.afterSignal).length).toBeGreaterThan(0);
    for (const r of refused) expect([grpc.status.UNAVAILABLE, grpc.status.CANCELLED]).toContain((r as { code: number }).code);

    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    try {
      const rows = (
        await sql.query<{ uuid: string; order_id: string; status: string; network: string; address: string | null; memo: string | null; amount: string }>(
          `select uuid, order_id, status, network, address, memo, amount::text from invoices`,
        )
      ).rows;
      // Exactly the completed calls are stored, each whole: network, address (and memo on TON), pending.
      expect(rows.map((r) => r.order_id).sort()).toEqual(completed.map((r) => r.orderId).sort());
      for (const r of completed) expect(rows.find((row) => row.order_id === r.orderId)!.uuid).toBe((r as { uuid: string }).uuid);
      for (const row of rows) {
        expect(row.status).toBe('pending');
        expect(Number(row.amount)).toBe(10);
        expect(row.address).toBeTruthy();
        if (row.network === 'TON') expect(row.memo).toBeTruthy();
      }
      // Each TRC20 invoice holds its pool address, and no pool address is held for an invoice that is not there.
      const unbacked = await sql.query(
        `select i.uuid from invoices i where i.network = 'TRC20' and not exists (select 1 from deposit_addresses d where d.invoice_uuid = i.uuid and d.address = i.address)`,
      );
      expect(unbacked.rows).toEqual([]);
      const dangling = await sql.query(`select d.address from deposit_addresses d where d.invoice_uuid is not null and not exists (select 1 from invoices i where i.uuid = d.invoice_uuid)`);
      expect(dangling.rows).toEqual([]);
    } finally {
      await sql.end();
    }
  });
});
