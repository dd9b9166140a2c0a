import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import type { CreateMerchantResponse } from '../../src/grpc/generated/chainpay/v1/merchants';
import type { CreateInvoiceResponse, Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import { NETWORK_CODES } from '../../src/domain/networks';
import { createTestDatabase, type TestDatabase } from '../support/database';
import type { Spawned } from '../support/processes';
import { seededRandom } from '../support/seeded-random';
import { eventually } from '../support/stack';
import { addressOf } from '../withdrawals/support';
import { call, startDaemonProcess, type DaemonProcess } from './support/daemon-process';
import { devnetDriver, runWorkload, settle, type WorkloadState } from './support/workload';
import { atRest } from './support/at-rest';
import { checkInvariants } from './support/invariants';
import { recordFigures } from './support/figures';
import { LONG_MODE, runSeed, scaled } from './support/long-mode';
import { makeCert, Receiver, type TestCert } from '../webhooks/support';

/**
 * The crash harness on devnet: the daemon is SIGKILLed at random moments while invoices are created
 * and paid on every network, blocks mined and reorged, withdrawals made and webhooks delivered.
 * After the last restart the chains are mined until nothing is in flight, and every promise is
 * checked against the chain and the ledger (support/invariants.ts). A handful of kills in `npm test`,
 * hundreds in long mode; CHAINPAY_RELIABILITY_SEED replays a run.
 */
const KILLS = scaled(3, 200);
const payee = addressOf('TRC20', 'reliability-payee');
const SEED = runSeed(20261126);
jest.setTimeout(scaled(400_000, 6 * 60 * 60_000));

describe(`the daemon SIGKILLed ${KILLS} times under a devnet workload (seed ${SEED})`, () => {
  let db: TestDatabase;
  let receiver: Receiver;
  let cert: TestCert;
  const running: Spawned[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-rel-crash-'));
  const env = (): Record<string, string> => ({
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    DEVNET_BLOCK_MS: '0',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
    NODE_EXTRA_CA_CERTS: cert.certFile,
    TRC20_MIN_WITHDRAWAL: '1',
    TRC20_WITHDRAWAL_FEE: '1',
    ...Object.fromEntries(NETWORK_CODES.map((c) => [`${c}_CONFIRMATIONS`, '3'])),
  });

  beforeAll(async () => {
    db = await createTestDatabase('cp_rel_crash');
    cert = makeCert();
    receiver = await Receiver.start(cert);
  });
  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all(running.map((p) => p.exited()));
    await receiver?.down();
    await db?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('loses nothing and doubles nothing', async () => {
    const random = seededRandom(SEED);
    let d: DaemonProcess = await startDaemonProcess(env(), running);
    const merchant = await call<CreateMerchantResponse>((cb) => d.merchants.createMerchant({ name: 'reliability', webhook_url: receiver.url('/hook') }, d.md(), cb));
    const merchantId = merchant.merchant!.merchant_id;
    await fund(d, merchantId, '500');
    await call((cb) => d.withdrawals.addWhitelist({ merchant_id: merchantId, network: 'TRC20', address: payee }, d.md(), cb));
    await call((cb) => d.devnet.advanceTime({ seconds: String(24 * 3600 + 60) }, d.md(), cb));

    const state: WorkloadState = { merchantId, payee, invoices: [], references: 0, calls: 0, failures: 0 };
    for (let kill = 0; kill < KILLS; kill++) {
      const after = 300 + Math.floor(random() * 1700);
      const killed = new Promise<void>((resolve) => setTimeout(resolve, after)).then(() => d.kill());
      await runWorkload(d, devnetDriver(d), state, random, killed);
      await killed;
      d = await startDaemonProcess(env(), running);
    }

    await settle(devnetDriver(d), () => atRest(db.url));
    await eventually(async () => ((await pendingEvents(db.url)) === 0 ? true : undefined), 30_000, 'the outbox to drain');
    const violations = await checkInvariants(db.url, 'devnet');
    const figures = await countFigures(db.url, receiver);
    recordFigures('crash-devnet', { seed: SEED, kills: KILLS, calls: state.calls, failedCalls: state.failures, ...figures, violations: violations.length });
    expect(violations).toEqual([]);
    // At least once: every event the outbox delivered reached the merchant (a repeat is allowed).
    expect(figures.eventsDelivered).toBe(figures.eventsReceived);
    // The run did real work on every kind of step (a harness that exercised nothing proves nothing).
    expect(figures.invoicesPaid).toBeGreaterThan(0);
    expect(figures.withdrawalsCompleted).toBeGreaterThan(0);
    if (!LONG_MODE) expect(state.invoices.length).toBeGreaterThan(KILLS);
    expect(await d.stop()).toBe(0);

    // The checks can fail: a lost payment, a balance off by a cent and a second payout are each found.
    await query(db.url, `delete from invoice_payments where id = (select id from invoice_payments where state = 'confirmed' limit 1)`);
    await query(db.url, `update merchant_balances set available = available + 0.01`);
    await query(
      db.url,
      `insert into devnet_transfers (network, block_hash, event_index, tx_hash, from_address, to_address, to_key, amount, memo, contract)
       select network, block_hash, event_index + 1000, tx_hash, from_address, to_address, to_key, amount, memo, contract from devnet_transfers
        where to_address = '${payee}' limit 1`,
    );
    // Two open invoices on one address of the EVM family (what independent pools did, issue 44).
    await query(
      db.url,
      `update invoices set open = true, address = (select address from invoices where network = 'BEP20' order by created_at limit 1)
        where uuid in ((select uuid from invoices where network = 'BEP20' order by created_at limit 1), (select uuid from invoices where network = 'POLYGON' order by created_at limit 1))`,
    );
    const promises = new Set((await checkInvariants(db.url, 'devnet')).map((v) => v.promise));
    expect(promises).toEqual(
      new Set([
        'no two open invoices on one address (across the networks of a family)',
        'every transfer recorded exactly once',
        'balance = ledger',
        'an invoice books exactly its confirmed payments',
        'every completed withdrawal paid on chain exactly once, nothing else paid',
      ]),
    );
  });
});

/** A TRC20 invoice paid exactly and confirmed: `amount` credited to the merchant. */
async function fund(d: DaemonProcess, merchantId: string, amount: string): Promise<void> {
  const inv = (await call<CreateInvoiceResponse>((cb) => d.invoices.createInvoice({ amount, network: 'TRC20' }, d.md(merchantId), cb))).invoice!;
  await call((cb) => d.devnet.pay({ network: 'TRC20', to: inv.address!, amount: inv.pay_amount }, d.md(), cb));
  await call((cb) => d.devnet.mine({ network: 'TRC20', blocks: inv.required_confirmations }, d.md(), cb));
  await eventually(async () => ((await call<Invoice>((cb) => d.invoices.getInvoice({ uuid: inv.uuid }, d.md(merchantId), cb))).status === 'paid' ? true : undefined), 20_000, 'funding');
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows as T[];
  } finally {
    await c.end();
  }
}

async function pendingEvents(url: string): Promise<number> {
  const [r] = await query<{ n: string }>(url, `select count(*) as n from outbox_events where status = 'pending'`);
  return Number(r!.n);
}

async function countFigures(url: string, receiver: Receiver) {
  const [r] = await query<Record<string, string>>(
    url,
    `select (select count(*) from invoices) as invoices,
            (select count(*) from invoices where status in ('paid', 'overpaid')) as paid,
            (select count(*) from invoice_payments) as payments,
            (select count(*) from withdrawals) as withdrawals,
            (select count(*) from withdrawals where status = 'completed') as completed,
            (select count(*) from outbox_events) as events,
            (select count(*) from outbox_events where status = 'delivered') as delivered`,
  );
  const delivered = await query<{ id: string }>(url, `select id from outbox_events where status = 'delivered'`);
  const receivedIds = new Set(receiver.requests.map((r) => r.json.id));
  return {
    invoices: Number(r!.invoices),
    invoicesPaid: Number(r!.paid),
    payments: Number(r!.payments),
    withdrawals: Number(r!.withdrawals),
    withdrawalsCompleted: Number(r!.completed),
    events: Number(r!.events),
    eventsDelivered: Number(r!.delivered),
    eventsReceived: delivered.filter((e) => receivedIds.has(e.id)).length,
  };
}
