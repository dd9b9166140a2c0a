import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Address } from 'viem';
import { toBaseUnits } from '../../src/chains/amount';
import { cliJson, query } from '../operator/support';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { createMerchant, eventually, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import type { Json } from '../invoices/helpers';
import { startHardhatNode, type HardhatNode } from './support/hardhat-node';
import { TestChain } from './support/test-chain';

jest.setTimeout(120_000);

/**
 * Issue 44 in live mode: BEP20 and POLYGON on two real `hardhat node`s (two chains, one xpub, one
 * derivation path). Invoices of both networks never share an address, also when created in
 * parallel; a buyer who pays a POLYGON invoice's address on BEP20 credits no invoice (on today's
 * main the BEP20 invoice holding the same address took the money): the BEP20 watcher records an
 * unattributed deposit naming the POLYGON invoice, and `chainpay deposits unattributed` shows it.
 */
describe('live EVM networks on two hardhat nodes: one address, one open invoice; a wrong-network payment credits nobody', () => {
  const nodes: HardhatNode[] = [];
  const chains: Record<'BEP20' | 'POLYGON', { chain: TestChain; token: Address }> = {} as never;
  let db: TestDatabase;
  let stack: Stack;
  let a: MerchantCredentials;
  let b: MerchantCredentials;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-wrong-network-'));

  beforeAll(async () => {
    const env: Record<string, string> = {};
    for (const network of ['BEP20', 'POLYGON'] as const) {
      const node = await startHardhatNode();
      nodes.push(node);
      const chain = new TestChain(node.url);
      const token = await chain.deployToken(network === 'BEP20' ? 18 : 6);
      await chain.mint(token, chain.funder.address, 10n ** 30n);
      chains[network] = { chain, token };
      Object.assign(env, {
        [`${network}_RPC_URL`]: node.url,
        [`${network}_CHAIN_ID`]: '31337',
        [`${network}_TOKEN_ADDRESS`]: token,
        [`${network}_CONFIRMATIONS`]: '2',
        [`${network}_POLL_INTERVAL_MS`]: '100',
      });
    }
    db = await createTestDatabase('cp_wrong_network');
    stack = await startStack({ database: db, dataDir, env });
    a = await createMerchant(stack, { name: 'merchant A' });
    b = await createMerchant(stack, { name: 'merchant B' });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await db?.drop();
    for (const node of nodes) await node.stop();
  });

  const create = async (m: MerchantCredentials, network: string, amount = '10'): Promise<Json> => {
    const res = await signed(stack, m, 'POST', '/v1/invoices', { amount, network });
    expect(res.status).toBe(201);
    return res.body;
  };

  it("B's buyer pays B's POLYGON address on BEP20: no invoice is credited; an unattributed deposit names B's invoice", async () => {
    // Fresh pools: on main both invoices got index 0, the same address.
    const invA = await create(a, 'BEP20');
    const invB = await create(b, 'POLYGON');
    expect(invA.livemode).toBe(true);

    const bep20 = chains.BEP20;
    const tx = await bep20.chain.transfer(bep20.token, invB.address, toBaseUnits(invB.pay_amount, 18));
    await bep20.chain.mine(3);
    const deposit = await eventually(
      async () => {
        const wronglyPaid = (await signed(stack, a, 'GET', `/v1/invoices/${invA.uuid}`)).body;
        if (wronglyPaid.status !== 'pending') throw new Error(`merchant A's invoice was credited with B's buyer's money (${wronglyPaid.status}, ${wronglyPaid.received_amount})`);
        return ((await cliJson(stack, ['deposits', 'unattributed'])).deposits as Json[]).find((d) => d.tx_hash.toLowerCase() === tx.toLowerCase());
      },
      20_000,
      'the wrong-network deposit',
    );
    expect(deposit).toMatchObject({ network: 'BEP20', amount: invB.pay_amount, status: 'open', reason: 'wrong_network', intended_invoice_uuid: invB.uuid, intended_network: 'POLYGON' });
    for (const [m, inv] of [
      [a, invA],
      [b, invB],
    ] as const) {
      const now = (await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body;
      expect(now).toMatchObject({ status: 'pending', received_amount: '0', payments: [] });
    }
    expect(invA.address.toLowerCase()).not.toBe(invB.address.toLowerCase());

    // The right payment on the right chain still pays: B's buyer pays again, on POLYGON.
    const polygon = chains.POLYGON;
    await polygon.chain.transfer(polygon.token, invB.address, toBaseUnits(invB.pay_amount, 6));
    await polygon.chain.mine(2);
    await waitForStatus(stack, b, invB.uuid, 'paid', 20_000);
    expect((await signed(stack, a, 'GET', `/v1/invoices/${invA.uuid}`)).body.status).toBe('pending');
  });

  it('many invoices created in parallel on both live networks: no address open twice', async () => {
    const made = await Promise.all(Array.from({ length: 40 }, (_, i) => create(i % 2 ? a : b, i % 2 ? 'BEP20' : 'POLYGON', '1')));
    expect(new Set(made.map((inv) => inv.address.toLowerCase())).size).toBe(made.length);
    expect(await query(stack, `select lower(address) as a from invoices where open and network in ('BEP20', 'POLYGON') group by 1 having count(*) > 1`)).toEqual([]);
  });
});
