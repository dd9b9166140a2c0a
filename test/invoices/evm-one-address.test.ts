import { createMerchant, eventually, signed, type MerchantCredentials, type Stack, startStack } from '../support/stack';
import { createInvoice, getInvoice, mine, pay, type Json } from './helpers';
import { cli, cliJson, query, watcher } from '../operator/support';

const EVM = ['BEP20', 'POLYGON', 'ARBITRUM'] as const;

/**
 * Issue 44 on devnet: BEP20, POLYGON and ARBITRUM derive index i to one address, so an address is
 * open for at most one invoice across the three (they share one index space), and a payment on the
 * wrong EVM network credits no invoice: it is an unattributed deposit naming the invoice it was
 * probably meant for, which the operator can resolve.
 */
describe('EVM family: one address, one open invoice, across networks (devnet)', () => {
  let stack: Stack;
  let a: MerchantCredentials;
  let b: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack();
    a = await createMerchant(stack, { name: 'merchant A' });
    b = await createMerchant(stack, { name: 'merchant B' });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** Open invoices sharing one address on networks of the EVM family (what must never exist). */
  const sharedOpen = (): Promise<Json[]> =>
    query(
      stack,
      `select lower(address) as address, array_agg(network || ':' || uuid) as holders from invoices
        where open and memo is null and network in ('BEP20', 'POLYGON', 'ARBITRUM') group by lower(address) having count(*) > 1`,
    );

  it('a payment on the wrong EVM network credits no invoice: unattributed, naming the intended invoice; the operator can still attribute it', async () => {
    // On today's main the first invoice of each EVM pool gets index 0: A's BEP20 invoice and B's
    // POLYGON invoice share one address, and B's buyer paying on BEP20 paid A's invoice.
    const invA = await createInvoice(stack, a, { amount: '10', network: 'BEP20' });
    const invB = await createInvoice(stack, b, { amount: '10', network: 'POLYGON' });

    // B's buyer pays B's amount to B's address, but on BEP20.
    const tx = await pay(stack, 'BEP20', invB.address, invB.pay_amount);
    await mine(stack, 'BEP20', 3);
    const deposit = await eventually(
      async () => {
        // On main, A's invoice (the same address on BEP20) took B's buyer's money: say so at once.
        const wronglyPaid = await getInvoice(stack, a, invA.uuid);
        if (wronglyPaid.status !== 'pending') throw new Error(`merchant A's invoice was credited with B's buyer's money (${wronglyPaid.status}, ${wronglyPaid.received_amount})`);
        return ((await cliJson(stack, ['deposits', 'unattributed'])).deposits as Json[]).find((d) => d.tx_hash === tx.tx_hash);
      },
      10_000,
      'the wrong-network deposit in `chainpay deposits unattributed`',
    );
    expect(deposit).toMatchObject({ network: 'BEP20', amount: invB.pay_amount, status: 'open', reason: 'wrong_network', intended_invoice_uuid: invB.uuid, intended_network: 'POLYGON' });
    expect(deposit.address.toLowerCase()).toBe(invB.address.toLowerCase());
    // The human table names it too.
    const table = await cli(stack, ['deposits', 'unattributed']);
    expect(table.out).toContain(invB.uuid);
    expect(table.out).toContain('wrong_network');
    // Nobody was credited: neither A (same network; on main it held the same address and went
    // `confirming` with B's buyer's money) nor B (same address, other network).
    for (const [m, inv] of [
      [a, invA],
      [b, invB],
    ] as const) {
      const now = await getInvoice(stack, m, inv.uuid);
      expect(now).toMatchObject({ status: 'pending', received_amount: '0' });
      expect(now.payments).toEqual([]);
    }
    expect(await query(stack, 'select 1 from invoice_payments where tx_hash = ?', [tx.tx_hash])).toEqual([]);
    expect(invB.address.toLowerCase()).not.toBe(invA.address.toLowerCase());

    // Resolution: B's invoice moves to the network the money is on, then the operator attributes it.
    const moved = await signed(stack, b, 'POST', `/v1/invoices/${invB.uuid}/network`, { network: 'BEP20' });
    expect(moved.status).toBe(200);
    const attributed = await cliJson(stack, ['deposits', 'attribute', deposit.id, '--invoice', invB.uuid]);
    expect(attributed).toMatchObject({ id: deposit.id, status: 'attributed', invoice_uuid: invB.uuid });
    await mine(stack, 'BEP20', (await getInvoice(stack, b, invB.uuid)).required_confirmations);
    // Credited once, with what was paid (BEP20's pay_amount may differ from POLYGON's: the network fee).
    const credited = await eventually(
      async () => {
        const now = await getInvoice(stack, b, invB.uuid);
        return now.status !== 'pending' && now.status !== 'confirming' ? now : undefined;
      },
      10_000,
      "B's invoice to settle",
    );
    expect(credited.received_amount).toBe(invB.pay_amount);
    expect(credited.payments).toEqual([expect.objectContaining({ tx_hash: tx.tx_hash, amount: invB.pay_amount })]);
    expect((await getInvoice(stack, a, invA.uuid)).status).toBe('pending');
  });

  it('a payment on the wrong network to the old address of an invoice that changed network names that invoice too', async () => {
    const inv = await createInvoice(stack, a, { amount: '7', network: 'ARBITRUM' });
    const old = inv.address as string;
    expect((await signed(stack, a, 'POST', `/v1/invoices/${inv.uuid}/network`, { network: 'TRC20' })).status).toBe(200);
    const tx = await pay(stack, 'POLYGON', old, '7.07');
    await mine(stack, 'POLYGON', 3);
    const deposit = await eventually(async () => ((await cliJson(stack, ['deposits', 'unattributed'])).deposits as Json[]).find((d) => d.tx_hash === tx.tx_hash), 10_000, 'the deposit');
    expect(deposit).toMatchObject({ reason: 'wrong_network', intended_invoice_uuid: inv.uuid, intended_network: 'ARBITRUM' });
    expect((await getInvoice(stack, a, inv.uuid)).status).toBe('pending');
  });

  it('a payment on another EVM network to an address free in every pool: watched there too, unattributed free_pool_address, naming nobody', async () => {
    // The highest free BEP20 address: its index is BEP20's alone, so ARBITRUM's pool never holds it.
    const [free] = await query<{ address: string }>(stack, `select address from deposit_addresses where network = 'BEP20' and state = 'free' order by derivation_index desc limit 1`);
    expect(await query(stack, `select 1 from deposit_addresses where network = 'ARBITRUM' and normalized = lower(?)`, [free!.address])).toEqual([]);
    const tx = await pay(stack, 'ARBITRUM', free!.address, '3');
    await mine(stack, 'ARBITRUM', 3);
    const deposit = await eventually(async () => ((await cliJson(stack, ['deposits', 'unattributed'])).deposits as Json[]).find((d) => d.tx_hash === tx.tx_hash), 10_000, 'the deposit');
    expect(deposit).toMatchObject({ network: 'ARBITRUM', amount: '3', reason: 'free_pool_address' });
    expect(deposit.intended_invoice_uuid).toBeUndefined();
  });

  it('many invoices created in parallel on all three EVM networks: no address is open twice; every EVM watcher watches every address', async () => {
    const created = await Promise.all(Array.from({ length: 60 }, (_, i) => createInvoice(stack, i % 2 === 0 ? a : b, { amount: '1', network: EVM[i % EVM.length] })));
    const addresses = created.map((inv) => (inv.address as string).toLowerCase());
    expect(new Set(addresses).size).toBe(created.length);
    expect(await sharedOpen()).toEqual([]);
    // The pool rows agree: no index of the EVM space is held by two rows.
    expect(await query(stack, `select derivation_index from deposit_addresses where index_space = 'evm' and state <> 'retired' group by derivation_index having count(*) > 1`)).toEqual([]);
    // One watched set for the family: each EVM watcher watches the same addresses, all the pools' together.
    const [{ n }] = (await query<{ n: string }>(stack, `select count(distinct normalized)::text as n from deposit_addresses where index_space = 'evm'`)) as [{ n: string }];
    for (const network of EVM) expect(Number((await watcher(stack, network)).watched_addresses)).toBeGreaterThanOrEqual(Number(n));
  });
});
