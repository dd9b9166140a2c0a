import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NETWORK_CODES } from '../../src/domain/networks';
import type { CreateInvoiceResponse, Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import type { CreateMerchantResponse } from '../../src/grpc/generated/chainpay/v1/merchants';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { spawnTs, type Spawned } from '../support/processes';
import { seededRandom } from '../support/seeded-random';
import { eventually } from '../support/stack';
import { addressOf } from '../withdrawals/support';
import { call, connectDaemon, FIXED_KEYS, type DaemonProcess } from './support/daemon-process';
import { devnetDriver, runWorkload, settle, type WorkloadState } from './support/workload';
import { atRest } from './support/at-rest';
import { recordFigures } from './support/figures';
import { checkInvariants } from './support/invariants';
import { runSeed, scaled } from './support/long-mode';

/**
 * Failover: two daemons on one PostgreSQL, each with its own DATA_DIR; the active one is SIGKILLed
 * in the middle of the workload, the standby takes over (engine lock) and the workload goes on
 * against it; the killed one comes back as the new standby. After the last takeover the chains are
 * mined to rest and every promise is checked against the chain and the ledger.
 */
const TAKEOVERS = scaled(2, 50);
const SEED = runSeed(424242);
/** "Within seconds": from the kill to the standby answering, on a loaded 2-core machine. */
const TAKEOVER_LIMIT_MS = 20_000;
jest.setTimeout(scaled(170_000, 3 * 60 * 60_000));

describe(`failover under load: the active daemon killed ${TAKEOVERS} times (seed ${SEED})`, () => {
  let db: TestDatabase;
  const running: Spawned[] = [];
  const dirs = [0, 1].map((i) => fs.mkdtempSync(path.join(os.tmpdir(), `chainpay-rel-failover-${i}-`)));
  const spawn = (i: number): Spawned => {
    const proc = spawnTs('src/main.ts', {
      DATABASE_URL: db.url,
      DATA_DIR: dirs[i]!,
      GRPC_PORT: '0',
      DEVNET_BLOCK_MS: '0',
      LOG_LEVEL: 'info',
      TRC20_MIN_WITHDRAWAL: '1',
      TRC20_WITHDRAWAL_FEE: '1',
      ...FIXED_KEYS,
      ...Object.fromEntries(NETWORK_CODES.map((c) => [`${c}_CONFIRMATIONS`, '3'])),
    });
    running.push(proc);
    return proc;
  };
  beforeAll(async () => {
    db = await createTestDatabase('cp_rel_failover');
  });
  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all(running.map((p) => p.exited()));
    await db?.drop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the standby takes over within seconds and nothing is lost or doubled', async () => {
    const random = seededRandom(SEED);
    let active: DaemonProcess = await connectDaemon(spawn(0));
    let standby = spawn(1);
    await standby.waitFor(/waiting as a standby/, 90_000);
    const merchantId = (await call<CreateMerchantResponse>((cb) => active.merchants.createMerchant({ name: 'failover' }, active.md(), cb))).merchant!.merchant_id;
    const payee = addressOf('TRC20', 'failover-payee');
    const inv = (await call<CreateInvoiceResponse>((cb) => active.invoices.createInvoice({ amount: '300', network: 'TRC20' }, active.md(merchantId), cb))).invoice!;
    await call((cb) => active.devnet.pay({ network: 'TRC20', to: inv.address!, amount: inv.pay_amount }, active.md(), cb));
    await call((cb) => active.devnet.mine({ network: 'TRC20', blocks: 3 }, active.md(), cb));
    await eventually(async () => ((await call<Invoice>((cb) => active.invoices.getInvoice({ uuid: inv.uuid }, active.md(merchantId), cb))).status === 'paid' ? true : undefined), 20_000, 'funding');
    await call((cb) => active.withdrawals.addWhitelist({ merchant_id: merchantId, network: 'TRC20', address: payee }, active.md(), cb));
    await call((cb) => active.devnet.advanceTime({ seconds: String(24 * 3600 + 60) }, active.md(), cb));

    const state: WorkloadState = { merchantId, payee, invoices: [], references: 0, calls: 0, failures: 0 };
    const takeovers: number[] = [];
    let activeDir = 0;
    for (let t = 0; t < TAKEOVERS; t++) {
      const killed = new Promise<void>((resolve) => setTimeout(resolve, 800 + Math.floor(random() * 1500))).then(() => active.kill());
      await runWorkload(active, devnetDriver(active), state, random, killed);
      await killed;
      const started = Date.now();
      await standby.waitFor(/engine lock acquired/, TAKEOVER_LIMIT_MS);
      active = await connectDaemon(standby);
      await call((cb) => active.devnet.mine({ network: 'TRC20', blocks: 1 }, active.md(), cb));
      takeovers.push(Date.now() - started);
      activeDir = 1 - activeDir;
      standby = spawn(1 - activeDir);
      await standby.waitFor(/waiting as a standby/, 90_000);
    }

    await settle(devnetDriver(active), () => atRest(db.url));
    const violations = await checkInvariants(db.url, 'devnet');
    recordFigures('failover', { seed: SEED, takeovers: TAKEOVERS, takeoverMs: takeovers, calls: state.calls, violations: violations.length });
    expect(violations).toEqual([]);
    expect(Math.max(...takeovers)).toBeLessThan(TAKEOVER_LIMIT_MS);
    expect(state.invoices.length).toBeGreaterThan(0);
    expect(await active.stop()).toBe(0);
  });
});
