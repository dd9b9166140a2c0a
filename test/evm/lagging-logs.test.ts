import type { Address } from 'viem';
import { toBaseUnits } from '../../src/chains/amount';
import { watcher } from '../operator/support';
import { createMerchant, eventually, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { polygonOnHardhat } from './support/adapter';
import { startHardhatNode, type HardhatNode } from './support/hardhat-node';
import { startRpcProxy, type RpcProxy } from './support/rpc-proxy';
import { TestChain } from './support/test-chain';

jest.setTimeout(120_000);

/**
 * Issue 46 item 1, end to end through a live daemon: behind one RPC URL the headers come from an
 * up-to-date node and eth_getLogs from a backend 4 blocks behind, which clamps `toBlock` to its
 * own head and answers without an error (fewer logs), as geth does; a `blockHash` it lacks fails
 * with "unknown block". The watcher reads each range once: before, the deposits in the blocks the
 * lagging backend did not have were never credited. Now every deposit is credited exactly once,
 * at the head (unfinal ranges) and while catching up (final ranges).
 */
let node: HardhatNode;
let proxy: RpcProxy;
let chain: TestChain;
let token: Address;
let stack: Stack;
let m: MerchantCredentials;

const LAG = 4; // more than POLYGON_CONFIRMATIONS (3): final ranges are clamped too

beforeAll(async () => {
  node = await startHardhatNode();
  proxy = await startRpcProxy(node.url);
  chain = new TestChain(node.url); // the test's own calls go to the node, not through the proxy
  token = await chain.deployToken(6);
  await chain.mint(token, chain.funder.address, 10n ** 12n);
  stack = await startStack({ env: polygonOnHardhat(proxy.url, token) });
  m = await createMerchant(stack);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await proxy?.close();
  await node?.stop();
});

interface Invoice {
  readonly uuid: string;
  readonly address: string;
  readonly pay_amount: string;
}

async function invoice(amount: string): Promise<Invoice> {
  const res = await signed(stack, m, 'POST', '/v1/invoices', { amount, network: 'POLYGON' });
  if (res.status !== 201) throw new Error(`create invoice: ${res.status} ${res.text}`);
  return res.body as Invoice;
}

async function available(): Promise<bigint> {
  return toBaseUnits(((await signed(stack, m, 'GET', '/v1/balance')).body as { available: string }).available, 6);
}

async function payments(uuid: string): Promise<number> {
  const rows = await stack.daemon.orm.em.fork().getConnection().execute<{ n: string }[]>('select count(*) as n from invoice_payments where invoice_uuid = ?', [uuid]);
  return Number(rows[0]!.n);
}

/** The watcher has processed the node's head (its cursor is there). */
async function caughtUp(): Promise<void> {
  const head = String(await chain.head());
  await eventually(
    async () => {
      const w = await watcher(stack, 'POLYGON');
      if (w.cursor === head) return true;
      throw new Error(JSON.stringify(w));
    },
    20_000,
    `POLYGON cursor at ${head}`,
  );
}

/** Each invoice paid in full, by exactly one payment, and the balance grew by exactly their amounts. */
async function expectCreditedOnce(invoices: Invoice[], amounts: string[], before: bigint): Promise<void> {
  await chain.mine(3); // the last deposit reaches POLYGON_CONFIRMATIONS
  for (const inv of invoices) {
    const paid = await waitForStatus(stack, m, inv.uuid, 'paid', 30_000);
    expect(paid.received_amount).toBe(inv.pay_amount);
    expect(await payments(inv.uuid)).toBe(1);
  }
  const credited = amounts.reduce((sum, a) => sum + toBaseUnits(a, 6), 0n);
  expect((await available()) - before).toBe(credited);
  expect((await watcher(stack, 'POLYGON')).state).not.toBe('halted');
}

describe('a lagging eth_getLogs backend behind the RPC URL (clamps to its head, no error)', () => {
  it('at the head: each deposit, read in its own one-block range while the logs backend lacks it, is credited once', async () => {
    await caughtUp();
    const before = await available();
    // Every range query is clamped; every other by-hash query reaches the lagging backend and fails.
    proxy.faults.lagLogs = { blocks: LAG, when: (call, byHash) => !byHash || call % 2 === 0 };
    const amounts = ['3', '4', '5'];
    const invoices: Invoice[] = [];
    for (const amount of amounts) {
      const inv = await invoice(amount);
      invoices.push(inv);
      await chain.transfer(token, inv.address, toBaseUnits(inv.pay_amount, 6)); // its own block (automine)
      await caughtUp();
    }
    await expectCreditedOnce(invoices, amounts, before);
    expect(proxy.fired.clamped).toBeGreaterThanOrEqual(amounts.length);
    expect(proxy.fired.unknown_block).toBeGreaterThan(0);
    proxy.faults.lagLogs = null;
  });

  it('catching up: deposits in the last blocks of a final range the logs backend clamped are credited once', async () => {
    await caughtUp();
    const before = await available();
    const clamped = proxy.fired.clamped ?? 0;
    // The head node stalls while the chain goes on: the watcher falls behind, then reads final ranges.
    const h0 = await chain.head();
    proxy.faults.frozenHead = h0;
    proxy.faults.lagLogs = { blocks: LAG, when: (call, byHash) => !byHash || call % 2 === 0 };
    const amounts = ['6', '7', '8'];
    const invoices = await Promise.all(amounts.map((a) => invoice(a)));
    await chain.mine(7);
    // Blocks h0+8, h0+9, h0+10 pay us; the head is h0+12: [h0+1, h0+10] is one final range, and the
    // lagging backend answers it up to h0+8 only.
    for (const inv of invoices) await chain.transfer(token, inv.address, toBaseUnits(inv.pay_amount, 6));
    await chain.mine(2);
    expect(await chain.head()).toBe(h0 + 12);
    proxy.faults.frozenHead = null;
    await caughtUp();
    expect(proxy.fired.clamped! - clamped).toBeGreaterThan(0);
    await expectCreditedOnce(invoices, amounts, before);
    proxy.faults.lagLogs = null;
  });
});
