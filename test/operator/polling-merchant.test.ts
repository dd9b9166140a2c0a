import { createMerchant, eventually, startStack, type MerchantCredentials, type Stack } from '../support/stack';
import { createInvoice, payAndConfirm } from '../invoices/helpers';
import { captureLogger, type LogLine } from '../webhooks/support';
import { cliJson } from './support';
import type { ListWebhooksResponse } from '../../src/grpc/generated/chainpay/v1/operator';

/** The value of one sample line of /metrics, e.g. sample(text, 'chainpay_webhook_events{status="failed"}'). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/**
 * A merchant with no webhook URL polls: its events are no delivery failure. No WARN line per
 * event, no failed event or failed attempt in the metrics (an alert on them must stay quiet),
 * and the events stay in the outbox, listed as `unaddressed`.
 */
describe('a merchant without a webhook URL (polling)', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  let lines: LogLine[];
  beforeAll(async () => {
    const captured = captureLogger();
    lines = captured.lines;
    stack = await startStack({ logger: captured.logger, env: { METRICS_PORT: '0' } });
    m = await createMerchant(stack); // no webhook_url
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('keeps its events in the outbox as unaddressed: no warning, no failed-delivery metrics', async () => {
    const from = lines.length; // what the daemon logged at start (e.g. the address guard being off) is not this test's
    const inv = await createInvoice(stack, m, { amount: '3', network: 'TRC20' });
    await payAndConfirm(stack, m, inv, inv.pay_amount, 'paid');

    const listed = await eventually(
      async () => {
        const res = await cliJson<ListWebhooksResponse>(stack, ['webhooks', 'list', '--merchant', m.merchantId]);
        return res.events.length === 2 && res.events.every((e) => e.status === 'unaddressed') ? res.events : undefined;
      },
      10_000,
      'both events unaddressed',
    );
    expect(listed.map((e) => [e.type, e.aggregate_id, e.attempts, e.deliveries.length]).sort()).toEqual([
      ['invoice.confirming', inv.uuid, 0, 0],
      ['invoice.paid', inv.uuid, 0, 0],
    ]);
    // Filtered by the new status, as an operator would look for them.
    const byStatus = await cliJson<ListWebhooksResponse>(stack, ['webhooks', 'list', '--merchant', m.merchantId, '--status', 'unaddressed']);
    expect(byStatus.events).toHaveLength(2);

    // Nothing at WARN or above, nor any line naming these events above debug.
    const ids = new Set(listed.map((e) => e.id));
    expect(lines.slice(from).filter((l) => l.level >= 40)).toEqual([]);
    expect(lines.filter((l) => ids.has(l.eventId))).toEqual([]);

    const text = await (await fetch(`http://127.0.0.1:${stack.daemon.metricsPort}/metrics`)).text();
    expect(sample(text, 'chainpay_webhook_events{status="failed"}')).toBe(0);
    expect(sample(text, 'chainpay_webhook_failed_attempts_total')).toBe(0);
    expect(sample(text, 'chainpay_webhook_queue_depth')).toBe(0);
    expect(sample(text, 'chainpay_webhook_events{status="unaddressed"}')).toBe(2);
  });
});
