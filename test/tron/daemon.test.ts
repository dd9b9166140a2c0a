import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toBaseUnits } from '../../src/chains/amount';
import type { Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { watcher } from '../operator/support';
import { createMerchant, eventually, rpc, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { TronTestChain } from './support/tron-chain';

jest.setTimeout(90_000);

let chain: TronTestChain;
let db: TestDatabase;
let dataDir: string;
let stack: Stack | null = null;
let m: MerchantCredentials;

async function start(): Promise<Stack> {
  stack = await startStack({
    database: db,
    dataDir,
    env: {
      TRC20_RPC_URL: chain.url,
      TRC20_API_KEY: 'daemon-key',
      TRC20_TOKEN_ADDRESS: chain.usdt,
      TRC20_CONFIRMATIONS: '3',
      TRC20_POLL_INTERVAL_MS: '50',
      // POLYGON on the same hardhat node: another network of the same daemon, over JSON-RPC.
      POLYGON_RPC_URL: chain.evmUrl,
      POLYGON_CHAIN_ID: '31337',
      POLYGON_TOKEN_ADDRESS: chain.usdtEvm,
      POLYGON_CONFIRMATIONS: '3',
      POLYGON_POLL_INTERVAL_MS: '50',
      METRICS_PORT: '0',
    },
  });
  return stack;
}

beforeAll(async () => {
  chain = await TronTestChain.start();
  chain.server.solidLag = 2;
  db = await createTestDatabase('cp_tron_daemon');
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-tron-daemon-'));
  await start();
  m = await createMerchant(stack!);
}, 90_000);

afterAll(async () => {
  await stack?.stop();
  await db?.drop();
  await chain?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function invoice(amount: string, network = 'TRC20'): Promise<{ uuid: string; address: string; pay_amount: string; required_confirmations: number; livemode: boolean }> {
  const res = await signed(stack!, m, 'POST', '/v1/invoices', { amount, network });
  if (res.status !== 201) throw new Error(`create invoice: ${res.status} ${res.text}`);
  return res.body as never;
}

async function paymentRows(uuid: string): Promise<number> {
  const rows = await stack!.daemon.orm.em.fork().getConnection().execute<{ n: string }[]>('select count(*) as n from invoice_payments where invoice_uuid = ?', [uuid]);
  return Number(rows[0]!.n);
}

describe('daemon with TRC20 live on the TRON harness', () => {
  it('an invoice paid through tronweb goes pending -> confirming -> paid as blocks are produced; its QR link is the tron: link', async () => {
    const inv = await invoice('10');
    expect(inv).toMatchObject({ livemode: true, required_confirmations: 3 });
    expect(inv.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    const grpcInvoice = await rpc<Invoice>((cb) => stack!.clients.invoices.getInvoice({ uuid: inv.uuid }, merchantMetadata(), cb));
    expect(grpcInvoice.payment_uri).toBe(`tron:${inv.address}?token=${chain.usdt}&amount=${inv.pay_amount}`);

    const txID = await chain.pay(inv.address, toBaseUnits(inv.pay_amount, 6));
    // Broadcast, not yet in a block: nothing to see.
    await new Promise((r) => setTimeout(r, 300));
    expect((await signed(stack!, m, 'GET', `/v1/invoices/${inv.uuid}`)).body.status).toBe('pending');
    await chain.produce(1);
    const confirming = await waitForStatus(stack!, m, inv.uuid, 'confirming', 15_000);
    expect(confirming).toMatchObject({ tx_hash: txID, received_amount: inv.pay_amount });
    await chain.produce(3);
    // 4 deep is enough (TRC20_CONFIRMATIONS 3) only once the block is also solidified: the watcher
    // sees the solidified head move on with the next blocks (TRON makes one every 3 s).
    const paid = await eventually(
      async () => {
        await chain.produce(1);
        await new Promise((r) => setTimeout(r, 250));
        const body = (await signed(stack!, m, 'GET', `/v1/invoices/${inv.uuid}`)).body as { status: string; confirmations: number };
        return body.status === 'paid' ? body : undefined;
      },
      20_000,
      'paid',
    );
    expect(paid).toMatchObject({ received_amount: inv.pay_amount, tx_hash: txID });
    expect(paid.confirmations).toBeGreaterThanOrEqual(3);
    expect(await paymentRows(inv.uuid)).toBe(1);
  });

  it('TronGrid answering 429 for a while: the TRC20 watcher backs off and shows it, POLYGON is unaffected, and no TRC20 payment is missed', async () => {
    const tron = await invoice('4');
    const polygon = await invoice('6', 'POLYGON');
    chain.server.rateLimited = 1_000_000; // every request with the daemon's API key
    const txID = await chain.pay(tron.address, toBaseUnits(tron.pay_amount, 6));
    await chain.evm.transfer(chain.usdtEvm, polygon.address, toBaseUnits(polygon.pay_amount, 6), chain.evm.other);
    await chain.produce(4);
    await waitForStatus(stack!, m, polygon.uuid, 'paid', 20_000);
    const limited = await eventually(async () => {
      const w = await watcher(stack!, 'TRC20');
      return /429/.test(w.last_error ?? '') ? w : undefined;
    }, 20_000);
    expect(limited.last_error).toMatch(/rate limited \(HTTP 429\)/);
    expect((await signed(stack!, m, 'GET', `/v1/invoices/${tron.uuid}`)).body.status).toBe('pending');
    chain.server.rateLimited = 0;
    // Caught up, final once solidified: the chain goes on making blocks meanwhile.
    await eventually(
      async () => {
        await chain.produce(1);
        await new Promise((r) => setTimeout(r, 250));
        return (await signed(stack!, m, 'GET', `/v1/invoices/${tron.uuid}`)).body.status === 'paid' ? true : undefined;
      },
      40_000,
      'the TRC20 invoice paid',
    );
    expect((await signed(stack!, m, 'GET', `/v1/invoices/${tron.uuid}`)).body).toMatchObject({ tx_hash: txID, received_amount: tron.pay_amount });
    expect(await paymentRows(tron.uuid)).toBe(1);
  });
});

function merchantMetadata() {
  const md = stack!.operator.clone();
  md.set('x-merchant-id', m.merchantId);
  return md;
}
