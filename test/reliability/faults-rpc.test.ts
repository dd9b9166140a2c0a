import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Address } from 'viem';
import { toBaseUnits } from '../../src/chains/amount';
import type { CreateInvoiceResponse, Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import type { CreateMerchantResponse } from '../../src/grpc/generated/chainpay/v1/merchants';
import type { WatcherStatus } from '../../src/grpc/generated/chainpay/v1/operator';
import { createTestDatabase, type TestDatabase } from '../support/database';
import type { Spawned } from '../support/processes';
import { eventually } from '../support/stack';
import { TEST_MNEMONIC, testCodec } from '../evm/support/adapter';
import { startHardhatNode, type HardhatNode } from '../evm/support/hardhat-node';
import { TestChain } from '../evm/support/test-chain';
import { call, startDaemonProcess, type DaemonProcess } from './support/daemon-process';
import { startFaultyRpc, type FaultMode, type FaultyRpc } from './support/faulty-rpc';
import { recordFigures } from './support/figures';
import { checkAgainstNode } from './support/hardhat-truth';
import { checkInvariants } from './support/invariants';
import { scaled } from './support/long-mode';

/**
 * The chain RPC misbehaving for a while: POLYGON's node behind a proxy that hangs, answers 429, or
 * answers garbage; ARBITRUM's node healthy. While POLYGON's RPC is down, an ARBITRUM payment is
 * credited as usual and POLYGON's watcher shows its error; once the RPC is back, the POLYGON
 * payment made during the fault is credited, once. Checked against both nodes at the end.
 */
const ROUNDS = scaled(1, 10);
const FAULT_MS = scaled(2_000, 60_000);
jest.setTimeout(scaled(400_000, 4 * 60 * 60_000));

interface Net {
  node: HardhatNode;
  chain: TestChain;
  usdt: Address;
  fake: Address;
}

describe('the chain RPC timing out, rate limiting and answering garbage', () => {
  const nets: Partial<Record<'POLYGON' | 'ARBITRUM', Net>> = {};
  let proxy: FaultyRpc;
  let db: TestDatabase;
  const running: Spawned[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-rel-rpc-'));

  beforeAll(async () => {
    for (const code of ['POLYGON', 'ARBITRUM'] as const) {
      const node = await startHardhatNode();
      const chain = new TestChain(node.url);
      const usdt = await chain.deployToken(6);
      const fake = await chain.deployToken(6);
      await chain.mint(usdt, chain.funder.address, 10n ** 12n);
      nets[code] = { node, chain, usdt, fake };
    }
    proxy = await startFaultyRpc(nets.POLYGON!.node.url);
    db = await createTestDatabase('cp_rel_rpc');
  }, 120_000);
  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all(running.map((p) => p.exited()));
    await proxy?.close();
    for (const n of Object.values(nets)) await n?.node.stop();
    await db?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('misses no payment, and the other network does not notice', async () => {
    const d: DaemonProcess = await startDaemonProcess(
      {
        DATABASE_URL: db.url,
        DATA_DIR: dataDir,
        HD_MNEMONIC: TEST_MNEMONIC,
        POLYGON_RPC_URL: proxy.url,
        POLYGON_SWEEP: 'off',
        POLYGON_CHAIN_ID: '31337',
        POLYGON_TOKEN_ADDRESS: nets.POLYGON!.usdt,
        POLYGON_CONFIRMATIONS: '3',
        POLYGON_POLL_INTERVAL_MS: '100',
        // A hanging RPC shows as an error after this long (15 s by default).
        POLYGON_RPC_TIMEOUT_MS: '2000',
        ARBITRUM_RPC_URL: nets.ARBITRUM!.node.url,
        ARBITRUM_CHAIN_ID: '31337',
        ARBITRUM_TOKEN_ADDRESS: nets.ARBITRUM!.usdt,
        ARBITRUM_CONFIRMATIONS: '3',
        ARBITRUM_POLL_INTERVAL_MS: '100',
      },
      running,
    );
    const merchantId = (await call<CreateMerchantResponse>((cb) => d.merchants.createMerchant({ name: 'rpc faults' }, d.md(), cb))).merchant!.merchant_id;
    const create = async (network: 'POLYGON' | 'ARBITRUM'): Promise<Invoice> =>
      (await call<CreateInvoiceResponse>((cb) => d.invoices.createInvoice({ amount: '10', network }, d.md(merchantId), cb))).invoice!;
    const status = async (inv: Invoice): Promise<string> => (await call<Invoice>((cb) => d.invoices.getInvoice({ uuid: inv.uuid }, d.md(merchantId), cb))).status;
    const payAndMine = async (code: 'POLYGON' | 'ARBITRUM', inv: Invoice): Promise<void> => {
      const n = nets[code]!;
      await n.chain.transfer(n.usdt, inv.address!, toBaseUnits(inv.pay_amount, 6));
      await n.chain.mine(3);
    };
    const polygonError = async (): Promise<string | undefined> => {
      const list = (await call<{ watchers: WatcherStatus[] }>((cb) => d.operator.listWatchers({}, d.md(), cb))).watchers;
      return list.find((w) => w.network === 'POLYGON')?.last_error ?? undefined;
    };

    const seen: Record<string, string> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of ['timeout', '429', 'garbage'] as FaultMode[]) {
        const polygon = await create('POLYGON');
        const arbitrum = await create('ARBITRUM');
        proxy.mode = mode;
        const faultStarted = Date.now();
        await payAndMine('POLYGON', polygon);
        await payAndMine('ARBITRUM', arbitrum);
        // The healthy network goes on while the other's RPC is down.
        await eventually(async () => ((await status(arbitrum)) === 'paid' ? true : undefined), 30_000, `ARBITRUM paid during a POLYGON ${mode}`);
        // The sick watcher says why (operators see it in `chainpay watchers`).
        seen[mode] = await eventually(polygonError, 40_000, `POLYGON's watcher to show the ${mode} error`);
        expect(await status(polygon)).not.toBe('paid');
        await new Promise((r) => setTimeout(r, Math.max(0, FAULT_MS - (Date.now() - faultStarted))));
        proxy.mode = 'ok';
        await eventually(
          async () => {
            await nets.POLYGON!.chain.mine(1);
            return (await status(polygon)) === 'paid' ? true : undefined;
          },
          60_000,
          `POLYGON paid after the ${mode}`,
        );
      }
    }
    const violations = [
      ...(await checkInvariants(db.url)),
      ...(await checkAgainstNode(db.url, nets.POLYGON!.chain, 'POLYGON', nets.POLYGON!.usdt, nets.POLYGON!.fake, testCodec().sampleAddress('nobody'))),
      ...(await checkAgainstNode(db.url, nets.ARBITRUM!.chain, 'ARBITRUM', nets.ARBITRUM!.usdt, nets.ARBITRUM!.fake, testCodec().sampleAddress('nobody'))),
    ];
    recordFigures('faults-rpc', { rounds: ROUNDS, faultMs: FAULT_MS, faultedRequests: proxy.faulted, errorsShown: seen, violations: violations.length });
    expect(violations).toEqual([]);
    expect(proxy.faulted).toBeGreaterThan(0);
    expect(await d.stop()).toBe(0);
  });
});
