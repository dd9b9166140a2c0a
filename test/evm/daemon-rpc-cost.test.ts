import type { Address } from 'viem';
import { watcher } from '../operator/support';
import { createMerchant, eventually, signed, startStack, type MerchantCredentials, type Stack } from '../support/stack';
import { startHardhatNode, type HardhatNode } from './support/hardhat-node';
import { startRpcProxy, type RpcProxy } from './support/rpc-proxy';
import { TestChain } from './support/test-chain';

/**
 * The daemon's RPC cost on a live EVM network does not grow with its open invoices: the watcher
 * asks for the token's Transfer logs of a block range once, whatever the number of watched
 * addresses (recipients are matched in memory). rpc-cost.test.ts shows it for the adapter; this
 * shows it for the daemon, with real open invoices holding real pool addresses.
 */
let node: HardhatNode;
let proxy: RpcProxy;
let chain: TestChain;
let token: Address;
let stack: Stack;
let m: MerchantCredentials;

const BLOCKS = 8;

beforeAll(async () => {
  node = await startHardhatNode();
  proxy = await startRpcProxy(node.url);
  chain = new TestChain(node.url); // the test's own calls go to the node, not through the proxy
  token = await chain.deployToken(6);
  stack = await startStack({
    env: {
      POLYGON_RPC_URL: proxy.url,
      POLYGON_SWEEP: 'off',
      POLYGON_CHAIN_ID: '31337',
      POLYGON_TOKEN_ADDRESS: token,
      POLYGON_CONFIRMATIONS: '3',
      // Caught up, the watcher polls the head often: each mined block is its own range below.
      POLYGON_POLL_INTERVAL_MS: '50',
      ADDRESS_POOL_BATCH: '500',
    },
  });
  m = await createMerchant(stack);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await proxy?.close();
  await node?.stop();
});

async function createInvoices(n: number): Promise<void> {
  const BATCH = 50;
  for (let i = 0; i < n; i += BATCH) {
    await Promise.all(
      Array.from({ length: Math.min(BATCH, n - i) }, async () => {
        const res = await signed(stack, m, 'POST', '/v1/invoices', { amount: '10', network: 'POLYGON' });
        if (res.status !== 201) throw new Error(`create invoice: ${res.status} ${res.text}`);
      }),
    );
  }
}

async function openPolygonInvoices(): Promise<number> {
  const rows = await stack.daemon.orm.em.fork().execute<{ n: string }[]>(`select count(*) as n from invoices where open and network = 'POLYGON'`);
  return Number(rows[0]!.n);
}

/** The watcher's cursor reached the node's head. */
async function caughtUpWithNode(): Promise<void> {
  const head = String(await chain.head());
  await eventually(async () => ((await watcher(stack, 'POLYGON')).cursor === head ? true : undefined), 10_000, `POLYGON cursor at ${head}`);
}

/** Mines BLOCKS blocks one at a time, each processed before the next; the daemon's calls meanwhile. */
async function mineAndCount(): Promise<{ counts: Record<string, number>; getLogs: Array<{ address: string; topics: unknown[] }> }> {
  await caughtUpWithNode();
  proxy.reset();
  for (let i = 0; i < BLOCKS; i++) {
    await chain.mine(1);
    await caughtUpWithNode();
  }
  const counts = proxy.counts();
  const getLogs = proxy.calls.filter((c) => c.method === 'eth_getLogs').map((c) => c.params[0] as { address: string; topics: unknown[] });
  return { counts, getLogs };
}

describe('daemon on a hardhat node: RPC cost per mined range with open POLYGON invoices', () => {
  it('1 and 1000 open invoices: the same eth_getLogs calls per mined block, filtered by the token and the Transfer topic only', async () => {
    await createInvoices(1);
    expect(await openPolygonInvoices()).toBe(1);
    const one = await mineAndCount();

    await createInvoices(999);
    expect(await openPolygonInvoices()).toBe(1000);
    const thousand = await mineAndCount();

    expect(one.counts.eth_getLogs).toBeGreaterThanOrEqual(BLOCKS); // every mined block was scanned
    expect(thousand.counts.eth_getLogs).toBe(one.counts.eth_getLogs);
    // No method appears that scales with addresses (eth_getBalance, eth_call per address, …).
    expect(Object.keys(thousand.counts).filter((k) => !(k in one.counts))).toEqual([]);
    for (const filter of [...one.getLogs, ...thousand.getLogs]) {
      expect(filter.address.toLowerCase()).toBe(token.toLowerCase());
      expect(filter.topics).toHaveLength(1); // the Transfer topic; no recipient list in the filter
    }
    // eslint-disable-next-line no-console
    console.log(`RPC calls over ${BLOCKS} mined blocks: 1 open invoice ${JSON.stringify(one.counts)}; 1000 open invoices ${JSON.stringify(thousand.counts)}`);
  }, 60_000);
});
