import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Address, toNano } from '@ton/core';
import { toBaseUnits } from '../../src/chains/amount';
import { createMerchant, eventually, rpc, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { TEST_MNEMONIC } from './support/adapter';
import { SandboxChain } from './support/sandbox-chain';
import { startToncenter, type ToncenterServer } from './support/toncenter-server';

jest.setTimeout(90_000);

/**
 * A live daemon with TON on the harness: the standard jetton contracts on @ton/sandbox behind a
 * toncenter v2 server, reached by the adapter's own TonClient. Invoices share the service wallet,
 * each with its memo.
 */
let chain: SandboxChain;
let server: ToncenterServer;
let db: TestDatabase;
let stack: Stack | null = null;
let m: MerchantCredentials;
let env: Record<string, string>;
let dataDir: string;

beforeAll(async () => {
  chain = await SandboxChain.create();
  server = await startToncenter(chain);
  db = await createTestDatabase();
  env = { HD_MNEMONIC: TEST_MNEMONIC, TON_RPC_URL: server.url, TON_JETTON_MASTER: chain.usdt.address.toString(), TON_POLL_INTERVAL_MS: '50', TON_CONFIRMATIONS: '1', TON_RPS: '1000' };
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-ton-daemon-'));
  stack = await startStack({ env, database: db, dataDir });
  m = await createMerchant(stack);
}, 90_000);

afterAll(async () => {
  await stack?.stop();
  await db?.drop();
  await server?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Invoice {
  uuid: string;
  address: string;
  memo: string;
  pay_amount: string;
  required_confirmations: number;
  payment_uri?: string;
}

async function invoice(amount: string): Promise<Invoice> {
  const res = await signed(stack!, m, 'POST', '/v1/invoices', { amount, network: 'TON' });
  if (res.status !== 201) throw new Error(`create invoice: ${res.status} ${res.text}`);
  return res.body as Invoice;
}

async function unattributed(): Promise<Array<{ memo: string | null; amount: string; reason: string }>> {
  return stack!.daemon.orm.em.fork().execute(`select memo, amount::text as amount, reason from unattributed_deposits where network = 'TON' order by seen_at`);
}

const units = (amount: string): bigint => toBaseUnits(amount, 6);

describe('TON live on the sandbox harness', () => {
  it('an invoice paid with its memo goes to paid (1 masterchain confirmation)', async () => {
    const inv = (await invoice('10')) as Invoice & { livemode: boolean };
    expect(inv).toMatchObject({ required_confirmations: 1, livemode: true });
    expect(inv.memo).toBeTruthy();
    await chain.pay({ to: Address.parse(inv.address), amount: units(inv.pay_amount), memo: inv.memo });
    const paid = await waitForStatus(stack!, m, inv.uuid, 'paid', 20_000);
    expect(paid.received_amount).toBe(inv.pay_amount);
    expect(paid.tx_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('two payments with one memo add up (the second with forward_ton_amount = 0: no notification at all)', async () => {
    const inv = await invoice('10');
    const total = units(inv.pay_amount);
    await chain.pay({ to: Address.parse(inv.address), amount: total - 4_000_000n, memo: inv.memo, payloadInRef: true });
    await waitForStatus(stack!, m, inv.uuid, 'partially_paid', 20_000);
    await chain.pay({ to: Address.parse(inv.address), amount: 4_000_000n, memo: inv.memo, forwardTon: 0n });
    const paid = await waitForStatus(stack!, m, inv.uuid, 'paid', 20_000);
    expect(paid.payments).toHaveLength(2);
  });

  it('no memo and an unknown memo become unattributed deposits; a look-alike jetton, a forged notification and a bounce change nothing', async () => {
    const inv = await invoice('3');
    const to = Address.parse(inv.address);
    const before = await unattributed();
    await chain.pay({ to, amount: units(inv.pay_amount), memo: inv.memo, fake: true });
    await chain.forgeNotification(to, units(inv.pay_amount), inv.memo);
    const jw = await chain.jettonWallet(to);
    await chain.forgeInternalTransfer(jw, units(inv.pay_amount), inv.memo);
    await chain.bouncedInternalTransfer(jw, units(inv.pay_amount), inv.memo);
    await chain.pay({ to, amount: 1_000_000n, memo: null });
    await chain.pay({ to, amount: 2_000_000n, memo: 'NOBODY-123' });
    const rows = await eventually(async () => {
      const now = await unattributed();
      return now.length >= before.length + 2 ? now.slice(before.length) : undefined;
    }, 20_000);
    // Both are recorded in one transaction with the cursor (same seen_at): compared in amount order.
    expect(rows.map((r) => [r.memo, Number(r.amount), r.reason]).sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
      [null, 1, 'missing_memo'],
      ['NOBODY-123', 2, 'unknown_memo'],
    ]);
    const still = (await signed(stack!, m, 'GET', `/v1/invoices/${inv.uuid}`)).body as { status: string; received_amount: string };
    expect(still.status).toBe('pending');
    expect(Number(still.received_amount)).toBe(0);
  });

  it('payments made while the daemon is down are credited once after the restart, in order', async () => {
    const invs = [await invoice('2'), await invoice('3'), await invoice('4')];
    await stack!.stop();
    stack = null;
    for (const inv of invs) await chain.pay({ to: Address.parse(inv.address), amount: units(inv.pay_amount), memo: inv.memo });
    stack = await startStack({ env, database: db, dataDir });
    for (const inv of invs) {
      const paid = await waitForStatus(stack, m, inv.uuid, 'paid', 20_000);
      expect(paid.payments).toHaveLength(1);
    }
    const rows = await stack.daemon.orm.em.fork().execute<{ n: string }[]>(
      `select count(*)::text as n from invoice_payments where invoice_uuid in (?, ?, ?)`,
      invs.map((i) => i.uuid),
    );
    expect(rows[0]!.n).toBe('3');
  });

  it('with 3 required confirmations: confirming at the masterchain block that showed the payment, paid two blocks later (the adapter counts them)', async () => {
    await rpc((cb) => stack!.clients.networks.updateNetworkFees({ code: 'TON', required_confirmations: 3 }, stack!.operator, cb));
    const inv = await invoice('5');
    expect(inv.required_confirmations).toBe(3);
    await chain.pay({ to: Address.parse(inv.address), amount: units(inv.pay_amount), memo: inv.memo });
    const confirming = (await waitForStatus(stack!, m, inv.uuid, 'confirming', 20_000)) as { confirmations: number };
    expect(confirming.confirmations).toBe(1);
    // Nothing moves without the masterchain: still confirming a while later.
    await new Promise((r) => setTimeout(r, 500));
    expect(((await signed(stack!, m, 'GET', `/v1/invoices/${inv.uuid}`)).body as { status: string }).status).toBe('confirming');
    const bystander = (await chain.blockchain.treasury('bystander')).address;
    await chain.fund(bystander, toNano('1'));
    await chain.fund(bystander, toNano('1'));
    const paid = (await waitForStatus(stack!, m, inv.uuid, 'paid', 20_000)) as { confirmations: number };
    expect(paid.confirmations).toBe(3);
  });
});
