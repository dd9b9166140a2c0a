import { startStack, createMerchant, signed, type Stack, type MerchantCredentials } from '../support/stack';
import pg from 'pg';
import { count } from './helpers';

describe('invoice concurrency', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    // A small pool, so 200 concurrent invoices must refill it while they run.
    stack = await startStack({ env: { ADDRESS_POOL_MIN_FREE: '20', ADDRESS_POOL_BATCH: '50' } });
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('50 parallel creates with one order_id give one invoice (one 201, the rest 200 with the same uuid)', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => signed(stack, m, 'POST', '/v1/invoices', { amount: '10', network: 'TRC20', order_id: 'same-order' })));
    expect(results.map((r) => r.status).sort((a, b) => a - b)).toEqual([...Array(49).fill(200), 201]);
    expect(new Set(results.map((r) => r.body.uuid)).size).toBe(1);
    expect(await count(stack, `select count(*)::int as n from invoices where order_id = 'same-order'`)).toBe(1);
    // The losers' address allocations were rolled back: one address is held for it.
    expect(await count(stack, `select count(*)::int as n from deposit_addresses where invoice_uuid = ?`, [results[0]!.body.uuid])).toBe(1);
  });

  it('the same order_id of another merchant is another invoice', async () => {
    const other = await createMerchant(stack, { name: 'other' });
    const a = await signed(stack, m, 'POST', '/v1/invoices', { amount: '10', order_id: 'shared-id' });
    const b = await signed(stack, other, 'POST', '/v1/invoices', { amount: '10', order_id: 'shared-id' });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.body.uuid).not.toBe(b.body.uuid);
  });

  it('200 concurrent invoices on one network get 200 distinct addresses; the pool refills itself', async () => {
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => signed(stack, m, 'POST', '/v1/invoices', { amount: '5', network: 'SOLANA', order_id: `pool-${i}` })));
    const failed = results.filter((r) => r.status !== 201);
    if (failed.length)
      console.log(
        failed.length,
        failed.slice(0, 3).map((r) => `${r.status} ${r.text}`),
      );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const addresses = results.map((r) => r.body.address as string);
    expect(new Set(addresses).size).toBe(200);
    expect(await count(stack, `select count(*)::int as n from deposit_addresses where network = 'SOLANA' and state = 'allocated'`)).toBe(200);
    // Refill runs in the background after allocations; it keeps at least the low-water mark free.
    await new Promise((r) => setTimeout(r, 500));
    expect(await count(stack, `select count(*)::int as n from deposit_addresses where network = 'SOLANA' and state = 'free'`)).toBeGreaterThanOrEqual(20);
  });

  it('invoices created together, some repeating an order_id (stored, or twice among them): each new order its own invoice and address, each repeat the original', async () => {
    // Creations that arrive together share one insert statement (group commit); a repeated order_id
    // makes the database refuse that statement, and its rows are then inserted one by one.
    const stored = await signed(stack, m, 'POST', '/v1/invoices', { amount: '5', network: 'ARBITRUM', order_id: 'kept-1' });
    expect(stored.status).toBe(201);
    const bodies = [...Array.from({ length: 30 }, (_, i) => ({ order_id: `mix-${i}` })), ...Array.from({ length: 5 }, () => ({ order_id: 'kept-1' })), { order_id: 'twin-a' }, { order_id: 'twin-a' }];
    // Inserts into invoices wait behind a lock while the requests arrive, so they queue and most of
    // them go into one statement together: new orders and repeats in the same batch.
    const blocker = new pg.Client({ connectionString: stack.databaseUrl });
    await blocker.connect();
    let results: Awaited<ReturnType<typeof signed>>[];
    try {
      await blocker.query('begin');
      await blocker.query('lock table invoices in share mode');
      const sent = Promise.all(bodies.map((b) => signed(stack, m, 'POST', '/v1/invoices', { amount: '5', network: 'ARBITRUM', ...b })));
      await new Promise((r) => setTimeout(r, 500));
      await blocker.query('commit');
      results = await sent;
    } finally {
      await blocker.end();
    }
    const fresh = results.slice(0, 30);
    expect(fresh.map((r) => r.status)).toEqual(Array(30).fill(201));
    expect(new Set(fresh.map((r) => r.body.uuid)).size).toBe(30);
    expect(new Set(fresh.map((r) => r.body.address)).size).toBe(30);
    expect(fresh.map((r) => r.body.order_id)).toEqual(bodies.slice(0, 30).map((b) => b.order_id));
    for (const r of results.slice(30, 35)) expect({ status: r.status, uuid: r.body.uuid }).toEqual({ status: 200, uuid: stored.body.uuid });
    const twins = results.slice(35);
    expect(twins.map((r) => r.status).sort()).toEqual([200, 201]);
    expect(twins[0]!.body.uuid).toBe(twins[1]!.body.uuid);
    // In the database: one row per order, each allocated address held by exactly its invoice, none orphaned.
    expect(await count(stack, `select count(*)::int as n from invoices where order_id like 'mix-%' or order_id in ('kept-1', 'twin-a')`)).toBe(32);
    expect(await count(stack, `select count(*)::int as n from deposit_addresses where network = 'ARBITRUM' and state = 'allocated'`)).toBe(32);
    expect(
      await count(
        stack,
        `select count(*)::int as n from deposit_addresses d join invoices i on i.uuid = d.invoice_uuid and i.address = d.address where d.network = 'ARBITRUM' and d.state = 'allocated'`,
      ),
    ).toBe(32);
  });

  it('100 concurrent TON invoices get 100 distinct memos on the one shared address', async () => {
    const results = await Promise.all(Array.from({ length: 100 }, () => signed(stack, m, 'POST', '/v1/invoices', { amount: '5', network: 'TON' })));
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(new Set(results.map((r) => r.body.memo)).size).toBe(100);
    expect(new Set(results.map((r) => r.body.address)).size).toBe(1);
  });
});
