import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import Decimal from 'decimal.js';
import { Client } from 'pg';
import { NETWORK_CODES, type NetworkCode } from '../../src/domain/networks';
import { DevnetServiceClient, type DevnetChainState } from '../../src/grpc/generated/chainpay/v1/devnet';
import { InvoiceServiceClient, type CreateInvoiceResponse, type Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import { MerchantServiceClient, type Balance, type CreateMerchantResponse } from '../../src/grpc/generated/chainpay/v1/merchants';
import { OperatorServiceClient, type WatcherStatus } from '../../src/grpc/generated/chainpay/v1/operator';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { grpcPortFrom, spawnTs, type Spawned } from '../support/processes';
import { eventually, rpc } from '../support/stack';

jest.setTimeout(180_000);

/**
 * docker-compose.yml as shipped: two daemons on one PostgreSQL, each with its own DATA_DIR, the same
 * keys from the environment, devnet blocks on the timer. The active one is SIGKILLed: the standby
 * takes over and continues the very same devnet chains (they live in the database), so every
 * watcher runs on, no chain height goes back, every invoice is as it was, and payments go on.
 */
const KEYS = {
  MASTER_KEY: 'a1'.repeat(32),
  OPERATOR_TOKEN: 'op_failover_test_token_0123456789',
  HD_MNEMONIC: 'test test test test test test test test test test test junk',
};
const CONFIRMATIONS = Object.fromEntries(NETWORK_CODES.map((c) => [`${c}_CONFIRMATIONS`, '4']));

interface Daemon {
  readonly proc: Spawned;
  readonly merchants: MerchantServiceClient;
  readonly invoices: InvoiceServiceClient;
  readonly devnet: DevnetServiceClient;
  readonly operator: OperatorServiceClient;
  close(): void;
}

describe('failover between two daemons on one database (devnet)', () => {
  let db: TestDatabase;
  const running: Spawned[] = [];
  const dirs = [0, 1].map((i) => fs.mkdtempSync(path.join(os.tmpdir(), `chainpay-failover-${i}-`)));
  beforeAll(async () => {
    db = await createTestDatabase('cp_failover');
  });
  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all(running.map((p) => p.exited()));
    await db?.drop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  function spawnDaemon(dataDir: string): Spawned {
    const proc = spawnTs('src/main.ts', { DATABASE_URL: db.url, DATA_DIR: dataDir, GRPC_PORT: '0', DEVNET_BLOCK_MS: '150', ...KEYS, ...CONFIRMATIONS });
    running.push(proc);
    return proc;
  }

  async function connect(proc: Spawned): Promise<Daemon> {
    const address = `127.0.0.1:${grpcPortFrom(await proc.waitFor(/gRPC server listening/, 90_000))}`;
    const creds = grpc.credentials.createInsecure();
    const c = {
      merchants: new MerchantServiceClient(address, creds),
      invoices: new InvoiceServiceClient(address, creds),
      devnet: new DevnetServiceClient(address, creds),
      operator: new OperatorServiceClient(address, creds),
    };
    return { proc, ...c, close: () => Object.values(c).forEach((client) => client.close()) };
  }

  const md = (merchantId?: string): grpc.Metadata => {
    const m = new grpc.Metadata();
    m.set('authorization', `Bearer ${KEYS.OPERATOR_TOKEN}`);
    if (merchantId) m.set('x-merchant-id', merchantId);
    return m;
  };

  async function canonicalHash(network: NetworkCode, height: number): Promise<string | undefined> {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      const res = await client.query<{ hash: string }>(`select hash from devnet_blocks where network = $1 and height = $2 and canonical`, [network, height]);
      return res.rows[0]?.hash;
    } finally {
      await client.end();
    }
  }

  it('the standby continues the same chains: watchers running, heights onward, invoices intact, new payments credited', async () => {
    const a = await connect(spawnDaemon(dirs[0]!));
    const standby = spawnDaemon(dirs[1]!);
    await standby.waitFor(/waiting as a standby/, 90_000);

    const merchantId = (await rpc<CreateMerchantResponse>((cb) => a.merchants.createMerchant({ name: 'failover shop' }, md(), cb))).merchant!.merchant_id;
    const create = (d: Daemon, network: NetworkCode, amount: string): Promise<Invoice> =>
      rpc<CreateInvoiceResponse>((cb) => d.invoices.createInvoice({ amount, network, order_id: `fo-${network}` }, md(merchantId), cb)).then((r) => r.invoice!);
    const get = (d: Daemon, uuid: string): Promise<Invoice> => rpc<Invoice>((cb) => d.invoices.getInvoice({ uuid }, md(merchantId), cb));
    const pay = (d: Daemon, inv: Invoice, amount: string): Promise<unknown> => rpc((cb) => d.devnet.pay({ network: inv.network!, to: inv.address!, amount, memo: inv.memo ?? undefined }, md(), cb));
    const until = (d: Daemon, uuid: string, status: string): Promise<Invoice> =>
      eventually(
        async () => {
          const inv = await get(d, uuid);
          return inv.status === status ? inv : undefined;
        },
        30_000,
        `invoice ${uuid} ${status}`,
      );

    // On the active daemon: one invoice per network, in every state an invoice can be in at a failover.
    const amounts: Record<NetworkCode, string> = { TRC20: '10', BEP20: '11', TON: '12', POLYGON: '13', ARBITRUM: '14', SOLANA: '15' };
    const inv = Object.fromEntries(await Promise.all(NETWORK_CODES.map(async (n) => [n, await create(a, n, amounts[n])]))) as Record<NetworkCode, Invoice>;
    await pay(a, inv.TRC20, inv.TRC20.pay_amount);
    const paidBefore = await until(a, inv.TRC20.uuid, 'paid');
    await pay(a, inv.TON, '5');
    const partialBefore = await until(a, inv.TON.uuid, 'partially_paid');
    await pay(a, inv.BEP20, inv.BEP20.pay_amount); // seen, maybe not yet confirmed at the kill
    await until(a, inv.BEP20.uuid, 'confirming').catch(() => undefined);

    // Where each chain stands (the timer keeps mining while we look: this is a lower bound).
    const before = new Map<NetworkCode, DevnetChainState>();
    for (const n of NETWORK_CODES) before.set(n, await rpc<DevnetChainState>((cb) => a.devnet.mine({ network: n, blocks: 1 }, md(), cb)));

    a.close();
    a.proc.child.kill('SIGKILL');
    await a.proc.exited();
    await standby.waitFor(/engine lock acquired/, 60_000);
    const b = await connect(standby);
    try {
      // Every watcher runs (none halted on a "reorg deeper than finality") and passes the old heads.
      const watchers = await eventually(
        async () => {
          const list = (await rpc<{ watchers: WatcherStatus[] }>((cb) => b.operator.listWatchers({}, md(), cb))).watchers;
          return list.length === 6 && list.every((w) => w.state === 'running' && Number(w.cursor) > Number(before.get(w.network as NetworkCode)!.head)) ? list : undefined;
        },
        30_000,
        'all six watchers running past the heights before the failover',
      );
      expect(watchers.map((w) => w.last_error ?? null)).toEqual(NETWORK_CODES.map(() => null));
      // The same chains, continued: the blocks seen before are still canonical, heights go on.
      for (const n of NETWORK_CODES) {
        const seen = before.get(n)!;
        expect(await canonicalHash(n, Number(seen.head))).toBe(seen.head_hash);
        const now = await rpc<DevnetChainState>((cb) => b.devnet.mine({ network: n, blocks: 1 }, md(), cb));
        expect(Number(now.head)).toBeGreaterThan(Number(seen.head));
      }

      // Invoices intact: the paid one as it was, the partial one still partial, the confirming one confirms.
      const paidAfter = await get(b, inv.TRC20.uuid);
      expect(paidAfter).toMatchObject({ status: 'paid', received_amount: paidBefore.received_amount, tx_hash: paidBefore.tx_hash });
      expect(paidAfter.payments).toEqual(paidBefore.payments.map((p) => expect.objectContaining({ tx_hash: p.tx_hash, amount: p.amount })));
      expect(await get(b, inv.TON.uuid)).toMatchObject({ status: 'partially_paid', received_amount: partialBefore.received_amount });
      await until(b, inv.BEP20.uuid, 'paid');

      // Payments after the failover are seen and credited: the open invoices and the top-up.
      for (const n of ['POLYGON', 'ARBITRUM', 'SOLANA'] as const) await pay(b, inv[n], inv[n].pay_amount);
      const topUp = new Decimal(inv.TON.pay_amount).minus(5).toFixed();
      await pay(b, inv.TON, topUp);
      for (const n of ['POLYGON', 'ARBITRUM', 'SOLANA', 'TON'] as const) {
        const done = await until(b, inv[n].uuid, 'paid');
        expect(done.received_amount).toBe(inv[n].pay_amount);
      }
      const balance = await rpc<Balance>((cb) => b.merchants.getBalance({ merchant_id: merchantId }, md(merchantId), cb));
      expect(balance.available).toBe('75'); // 10 + 11 + ... + 15: each invoice credited once

      expect(b.proc.output()).not.toMatch(/watcher HALTED/);
      // Nothing of the chains lives in either DATA_DIR: only the database holds them.
      for (const dir of dirs) expect(fs.readdirSync(dir)).not.toContain('devnet');
    } finally {
      b.close();
      b.proc.child.kill('SIGTERM');
      expect(await b.proc.exited()).toBe(0);
    }
  });
});
