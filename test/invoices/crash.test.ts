import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { spawnTs, grpcPortFrom, type Spawned } from '../support/processes';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { rpc, eventually } from '../support/stack';
import { MerchantServiceClient, type CreateMerchantResponse, type Balance } from '../../src/grpc/generated/chainpay/v1/merchants';
import { InvoiceServiceClient, type CreateInvoiceResponse, type Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import { DevnetServiceClient } from '../../src/grpc/generated/chainpay/v1/devnet';

jest.setTimeout(120_000);

interface Daemon {
  proc: Spawned;
  merchants: MerchantServiceClient;
  invoices: InvoiceServiceClient;
  devnet: DevnetServiceClient;
  close(): void;
}

describe('a daemon killed with SIGKILL mid-confirmation', () => {
  let db: TestDatabase;
  const running: Spawned[] = [];
  beforeAll(async () => {
    db = await createTestDatabase('cp_crash');
  });
  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await db.drop();
  });

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-crash-'));
  async function start(): Promise<Daemon> {
    const proc = spawnTs('src/main.ts', { DATABASE_URL: db.url, DATA_DIR: dataDir, GRPC_PORT: '0', DEVNET_BLOCK_MS: '0', LOG_LEVEL: 'info' });
    running.push(proc);
    const addr = `127.0.0.1:${grpcPortFrom(await proc.waitFor(/gRPC server listening/))}`;
    const creds = grpc.credentials.createInsecure();
    const d = { proc, merchants: new MerchantServiceClient(addr, creds), invoices: new InvoiceServiceClient(addr, creds), devnet: new DevnetServiceClient(addr, creds) };
    return { ...d, close: () => [d.merchants, d.invoices, d.devnet].forEach((c) => c.close()) };
  }
  const operator = (): grpc.Metadata => {
    const md = new grpc.Metadata();
    md.set('authorization', `Bearer ${fs.readFileSync(path.join(dataDir, 'operator-token'), 'utf8').trim()}`);
    return md;
  };
  const asMerchant = (merchantId: string): grpc.Metadata => {
    const md = operator();
    md.set('x-merchant-id', merchantId);
    return md;
  };

  it('after restart the invoice reaches paid and is credited exactly once', async () => {
    let d = await start();
    const merchant = await rpc<CreateMerchantResponse>((cb) => d.merchants.createMerchant({ name: 'crash shop' }, operator(), cb));
    const merchantId = merchant.merchant!.merchant_id;
    const created = await rpc<CreateInvoiceResponse>((cb) => d.invoices.createInvoice({ amount: '40', network: 'BEP20', order_id: 'crash-1' }, asMerchant(merchantId), cb));
    const inv = created.invoice!;
    expect(inv.required_confirmations).toBe(15);
    await rpc((cb) => d.devnet.pay({ network: 'BEP20', to: inv.address!, amount: inv.pay_amount }, operator(), cb));
    await rpc((cb) => d.devnet.mine({ network: 'BEP20', blocks: 5 }, operator(), cb));
    const mid = await eventually(async () => {
      const i = await rpc<Invoice>((cb) => d.invoices.getInvoice({ uuid: inv.uuid }, asMerchant(merchantId), cb));
      return i.status === 'confirming' && i.confirmations === 6 ? i : undefined;
    });
    expect(mid.received_amount).toBe(inv.pay_amount);

    d.close();
    d.proc.child.kill('SIGKILL');
    await d.proc.exited();

    d = await start();
    // The restored actor still confirms; nothing was credited while it was unfinal.
    const restored = await rpc<Invoice>((cb) => d.invoices.getInvoice({ uuid: inv.uuid }, asMerchant(merchantId), cb));
    expect(restored.status).toBe('confirming');
    expect((await rpc<Balance>((cb) => d.merchants.getBalance({ merchant_id: merchantId }, asMerchant(merchantId), cb))).available).toBe('0');
    await rpc((cb) => d.devnet.mine({ network: 'BEP20', blocks: 12 }, operator(), cb));
    const paid = await eventually(async () => {
      const i = await rpc<Invoice>((cb) => d.invoices.getInvoice({ uuid: inv.uuid }, asMerchant(merchantId), cb));
      return i.status === 'paid' ? i : undefined;
    });
    expect(paid.payments).toHaveLength(1);
    const balance = await rpc<Balance>((cb) => d.merchants.getBalance({ merchant_id: merchantId }, asMerchant(merchantId), cb));
    expect(balance.available).toBe('40');

    // Killed again right after payment, restarted: still credited once.
    d.close();
    d.proc.child.kill('SIGKILL');
    await d.proc.exited();
    d = await start();
    await rpc((cb) => d.devnet.mine({ network: 'BEP20', blocks: 3 }, operator(), cb));
    await new Promise((r) => setTimeout(r, 300));
    const again = await rpc<Balance>((cb) => d.merchants.getBalance({ merchant_id: merchantId }, asMerchant(merchantId), cb));
    expect(again.available).toBe('40');
    const { Client } = await import('pg');
    const c = new Client({ connectionString: db.url });
    await c.connect();
    const journals = await c.query(`select count(*)::int as n from journals where reference like $1`, [`invoice:${inv.uuid}:%`]);
    const payments = await c.query(`select count(*)::int as n from invoice_payments where invoice_uuid = $1`, [inv.uuid]);
    await c.end();
    expect(journals.rows[0].n).toBe(1);
    expect(payments.rows[0].n).toBe(1);
    d.close();
    d.proc.child.kill('SIGTERM');
    expect(await d.proc.exited()).toBe(0);
  });
});
