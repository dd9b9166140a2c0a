/**
 * `npx tsx test/bench/webhook-throughput.ts` (N=500 by default; DATABASE_URL, else an embedded
 * PostgreSQL): how fast the webhook dispatcher empties an outbox. A real daemon on devnet and a
 * real local HTTPS receiver in this process; N due events for N withdrawals are inserted at once,
 * three rounds; it prints events delivered per second, this process's CPU per event (daemon AND
 * receiver, TLS on both sides) and the attempts' latency. The measurement behind the dispatcher's
 * raw-SQL path (src/webhooks/delivery.ts).
 */
import { startWebhookStack, createShop } from '../webhooks/stack';
import { makeCert, Receiver } from '../webhooks/support';

(async () => {
  const cert = makeCert();
  const receiver = await Receiver.start(cert);
  const stack = await startWebhookStack({ ca: cert.cert });
  const shop = await createShop(stack, receiver.url('/hook'));
  const N = Number(process.env.N ?? 500);
  const orm = stack.daemon.orm;
  for (let round = 0; round < 3; round++) {
    const before = receiver.requests.length;
    const now = new Date();
    const cpu0 = process.cpuUsage();
    const t0 = Date.now();
    await orm.em.fork().execute(
      `insert into outbox_events (id, merchant_id, aggregate_type, aggregate_id, type, body, status, attempts, next_attempt_at, created_at)
       select id, ?, 'withdrawal', gen_random_uuid(), 'withdrawal.processing', '{"id":"' || id || '","type":"withdrawal.processing","data":{}}', 'pending', 0, ?, ?
       from (select 'evt_' || md5(random()::text) as id from generate_series(1, ?)) g`,
      [shop.merchantId, now, now, N],
    );
    while (receiver.requests.length < before + N) await new Promise((r) => setTimeout(r, 20));
    const ms = Date.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    console.log(`round ${round}: ${N} events delivered in ${ms} ms = ${Math.round((N / ms) * 1000)}/s; process CPU (daemon + receiver) ${Math.round((cpu.user + cpu.system) / N)} µs/event`);
  }
  const lat = await orm.em.fork().execute(`select percentile_cont(array[0.5, 0.9, 0.99]) within group (order by latency_ms) as p from webhook_attempts`);
  console.log('attempt latency ms p50/p90/p99', JSON.stringify(lat));
  await stack.stop();
  process.exit(0);
})();
