import { startStack, createMerchant, signed } from '../support/stack';
it('dbg', async () => {
  const stack = await startStack({ env: { ADDRESS_POOL_MIN_FREE: '20', ADDRESS_POOL_BATCH: '50', LOG_LEVEL: 'info' } });
  const m = await createMerchant(stack);
  const t = Date.now();
  const p = Promise.all(Array.from({ length: 200 }, (_, i) => signed(stack, m, 'POST', '/v1/invoices', { amount: '5', network: 'SOLANA', order_id: `pool-${i}` })));
  await new Promise((r) => setTimeout(r, 5000));
  const rows = await stack.daemon.orm.em.fork().getConnection().execute(`select state, wait_event_type, wait_event, left(query, 200) as q from pg_stat_activity where datname = current_database() and state <> 'idle'`);
  console.log(JSON.stringify(rows, null, 1));
  const results = await p;
  console.log(results.map((r) => r.status).join(','), Date.now() - t);
  await stack.stop();
}, 60000);
