import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Address } from 'viem';
import { toBaseUnits } from '../../src/chains/amount';
import type { CreateInvoiceResponse, Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import type { CreateMerchantResponse } from '../../src/grpc/generated/chainpay/v1/merchants';
import { createTestDatabase, type TestDatabase } from '../support/database';
import type { Spawned } from '../support/processes';
import { seededRandom } from '../support/seeded-random';
import { eventually } from '../support/stack';
import { TEST_MNEMONIC, testCodec } from '../evm/support/adapter';
import { startHardhatNode, type HardhatNode } from '../evm/support/hardhat-node';
import { TestChain } from '../evm/support/test-chain';
import { backdateWhitelist } from '../withdrawals/support';
import { atRest } from './support/at-rest';
import { call, startDaemonProcess, type DaemonProcess } from './support/daemon-process';
import { recordFigures } from './support/figures';
import { checkAgainstNode } from './support/hardhat-truth';
import { checkInvariants } from './support/invariants';
import { runSeed, scaled, trace } from './support/long-mode';
import { runWorkload, settle, type ChainDriver, type WorkloadState } from './support/workload';

/**
 * The crash harness on a real chain: POLYGON live on a `hardhat node` with a real ERC-20 (and a
 * look-alike token at another address). Invoices paid by real transfers, withdrawals paid out by
 * the daemon's hot wallet, the daemon SIGKILLed at random moments; at rest, every promise is
 * checked against the node's own Transfer logs and the ledger.
 */
const KILLS = scaled(3, 100);
const SEED = runSeed(99);
jest.setTimeout(scaled(400_000, 6 * 60 * 60_000));

describe(`a live POLYGON daemon SIGKILLed ${KILLS} times on a hardhat node (seed ${SEED})`, () => {
  let node: HardhatNode;
  let chain: TestChain;
  let usdt: Address;
  let fake: Address;
  let db: TestDatabase;
  const running: Spawned[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-rel-hh-'));
  const payee = testCodec().sampleAddress('reliability payee');
  const env = (): Record<string, string> => ({
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    HD_MNEMONIC: TEST_MNEMONIC,
    PAYOUT_POLL_INTERVAL_MS: '250',
    POLYGON_RPC_URL: node.url,
    POLYGON_CHAIN_ID: '31337',
    POLYGON_TOKEN_ADDRESS: usdt,
    POLYGON_CONFIRMATIONS: '3',
    POLYGON_POLL_INTERVAL_MS: '100',
  });

  beforeAll(async () => {
    node = await startHardhatNode();
    chain = new TestChain(node.url);
    usdt = await chain.deployToken(6);
    fake = await chain.deployToken(6, 'USDT');
    const hot = testCodec().hotWallet().address;
    await chain.mint(usdt, hot, 10n ** 12n);
    await chain.mint(usdt, chain.funder.address, 10n ** 12n);
    await chain.mint(fake, chain.funder.address, 10n ** 12n);
    await chain.fundEth(hot);
    db = await createTestDatabase('cp_rel_hh');
  }, 120_000);
  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all(running.map((p) => p.exited()));
    await db?.drop();
    await node?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('loses nothing and doubles nothing, against the node', async () => {
    const random = seededRandom(SEED);
    let d: DaemonProcess = await startDaemonProcess(env(), running);
    const merchantId = (await call<CreateMerchantResponse>((cb) => d.merchants.createMerchant({ name: 'hardhat reliability' }, d.md(), cb))).merchant!.merchant_id;
    // One sender: the node's transactions from the funder are sent one at a time (nonces).
    let queue: Promise<unknown> = Promise.resolve();
    const serial = <T>(fn: () => Promise<T>): Promise<T> => {
      const next = queue.then(fn, fn);
      queue = next.catch(() => undefined);
      return next;
    };
    const driver: ChainDriver = {
      networks: ['POLYGON'],
      reorgs: [],
      payoutNetwork: 'POLYGON',
      pay: (inv, amount, token) => serial(() => chain.transfer(token === 'fake' ? fake : usdt, inv.address!, toBaseUnits(amount, 6))),
      mine: (_network, blocks) => serial(() => chain.mine(blocks)),
      reorg: () => Promise.resolve(),
    };
    trace('daemon up; funding');
    const funding = (await call<CreateInvoiceResponse>((cb) => d.invoices.createInvoice({ amount: '500', network: 'POLYGON' }, d.md(merchantId), cb))).invoice!;
    await driver.pay(funding, funding.pay_amount, 'usdt');
    await eventually(
      async () => {
        await driver.mine('POLYGON', 1);
        return (await call<Invoice>((cb) => d.invoices.getInvoice({ uuid: funding.uuid }, d.md(merchantId), cb))).status === 'paid' ? true : undefined;
      },
      60_000,
      'funding',
    );
    await call((cb) => d.withdrawals.addWhitelist({ merchant_id: merchantId, network: 'POLYGON', address: payee }, d.md(), cb));
    await backdateWhitelist(db.url, merchantId);

    trace('funded and whitelisted');
    const state: WorkloadState = { merchantId, payee, invoices: [], references: 0, calls: 0, failures: 0 };
    for (let kill = 0; kill < KILLS; kill++) {
      const killed = new Promise<void>((resolve) => setTimeout(resolve, 800 + Math.floor(random() * 2000))).then(() => d.kill());
      await runWorkload(d, driver, state, random, killed, 2);
      await killed;
      trace('killed', { kill, calls: state.calls, failures: state.failures });
      d = await startDaemonProcess(env(), running);
    }
    trace('settling');
    await settle(driver, () => atRest(db.url), 120_000);
    const violations = [...(await checkInvariants(db.url)), ...(await checkAgainstNode(db.url, chain, 'POLYGON', usdt, fake, payee))];
    recordFigures('crash-hardhat', { seed: SEED, kills: KILLS, calls: state.calls, failedCalls: state.failures, invoices: state.invoices.length, violations: violations.length });
    expect(violations).toEqual([]);
    expect(state.invoices.length).toBeGreaterThan(0);
    expect(await d.stop()).toBe(0);
  });
});
