import Decimal from 'decimal.js';
import { rpc, eventually } from '../support/stack';
import type { CreateWithdrawalResponse } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import type { Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import { addressOf, DAY_S, fund, waitBroadcast, WD_ENV, whitelist, type Rpcs } from '../withdrawals/support';
import { startWebhookStack, createShop, createInvoice, waitInvoice, asMerchant, advance, type WebhookStack, type Shop } from './stack';
import { captureLogger, makeCert, Receiver, verifyServiceSignature, verifyStandardWebhook, type LogLine, type Received } from './support';

/** An outbox row as the merchant will get it: type, and the body's data (the REST object then). */
interface Row {
  readonly type: string;
  readonly data: { uuid: string; status: string; paid_late?: boolean; metadata?: unknown; received_amount?: string; [k: string]: unknown };
}

/**
 * Real state changes end to end: a devnet withdrawal's events at the receiver, and the invoice
 * paths beyond confirming/paid (underpaid, overpaid, expired, paid_late, reverted) in the outbox.
 */
describe('webhook events of real state changes', () => {
  let receiver: Receiver;
  let stack: WebhookStack;
  let r: Rpcs;
  let lines: LogLine[];
  beforeAll(async () => {
    const cert = makeCert();
    receiver = await Receiver.start(cert);
    const captured = captureLogger();
    lines = captured.lines;
    stack = await startWebhookStack({ ca: cert.cert }, WD_ENV, captured.logger);
    r = {
      invoices: stack.clients.invoices,
      devnet: stack.clients.devnet,
      withdrawals: stack.clients.withdrawals,
      operator: stack.operator,
      forMerchant: (merchantId) => asMerchant(stack, merchantId),
    };
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.down();
  });

  const mine = async (network: string, blocks: number): Promise<void> => {
    await rpc((cb) => stack.clients.devnet.mine({ network, blocks }, stack.operator, cb));
  };
  const pay = async (inv: Invoice, amount: string): Promise<void> => {
    await rpc((cb) => stack.clients.devnet.pay({ network: inv.network!, to: inv.address!, amount }, stack.operator, cb));
  };
  /** The invoice's outbox rows in commit order, once there are `n` of them. */
  const outbox = async (uuid: string, n: number): Promise<Row[]> =>
    eventually(
      async () => {
        const rows = await stack.daemon.orm.em.fork().execute<{ type: string; body: string }[]>('select type, body from outbox_events where aggregate_id = ? order by seq', [uuid]);
        return rows.length >= n ? rows.map((x) => ({ type: x.type, data: JSON.parse(x.body).data })) : undefined;
      },
      10_000,
      `${n} outbox events of ${uuid}`,
    );
  const metadata = { order: 'E-1', n: 1 };

  it('a devnet withdrawal: withdrawal.processing then withdrawal.completed reach the receiver, signed, with the Withdrawal', async () => {
    const shop: Shop = await createShop(stack, receiver.url('/wd'));
    const payee = addressOf('TRC20', 'webhook-events-payee');
    await fund(r, shop.merchantId, '50');
    await whitelist(r, shop.merchantId, 'TRC20', payee);
    await advance(stack, DAY_S); // the whitelist cooldown
    const created = await rpc<CreateWithdrawalResponse>((cb) =>
      stack.clients.withdrawals.createWithdrawal({ network: 'TRC20', address: payee, amount: '10.5', reference: 'wh-1' }, asMerchant(stack, shop.merchantId), cb),
    );
    const w = created.withdrawal!;
    expect(w.status).toBe('processing');
    await waitBroadcast(stack.daemon.orm, w.uuid);
    await mine('TRC20', 3); // TRC20_CONFIRMATIONS=3 (WD_ENV)

    const got = await eventually(
      async () => {
        const hits = receiver.at('/wd').filter((x) => x.json.type.startsWith('withdrawal.'));
        return hits.length >= 2 ? hits : undefined;
      },
      15_000,
      'both withdrawal events at the receiver',
    );
    await new Promise((res) => setTimeout(res, 500)); // a duplicate would show up within a few polls
    const hits: Received[] = receiver.at('/wd').filter((x) => x.json.type.startsWith('withdrawal.'));
    expect(hits).toHaveLength(2);
    expect(got.map((x) => x.json.type)).toEqual(['withdrawal.processing', 'withdrawal.completed']);
    for (const hit of got) {
      expect(verifyServiceSignature(shop.apiSecret, hit.body, hit.headers['x-service-signature'])).toBe(true);
      expect(verifyStandardWebhook(shop.webhookSecret, hit.headers, hit.body)).toBe(true);
      expect(hit.headers['webhook-id']).toBe(hit.json.id);
      // A devnet withdrawal says it is a test (livemode false), in the signed body the receiver gets.
      expect(hit.json.data).toMatchObject({ uuid: w.uuid, network: 'TRC20', address: payee, amount: '10.5', network_fee: '1', net_payout: '9.5', reference: 'wh-1', livemode: false });
    }
    expect(got[0]!.json.data).toMatchObject({ status: 'processing', completed_at: null });
    expect(got[1]!.json.data.status).toBe('completed');
    expect(got[1]!.json.data.tx_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(got[1]!.json.data.completed_at)).not.toBeNaN();
    expect(got[0]!.json.id).not.toBe(got[1]!.json.id);
    // Each delivery's log line names the event, its merchant and its withdrawal.
    for (const hit of got) {
      const line = await eventually(async () => lines.find((l) => l.msg === 'webhook delivered' && l.eventId === hit.json.id), 5_000, 'the delivery log line');
      expect(line).toMatchObject({ level: 30, eventId: hit.json.id, type: hit.json.type, merchantId: shop.merchantId, withdrawalUuid: w.uuid, attempt: 1, status: 'delivered', statusCode: 200 });
      expect(line.invoiceUuid).toBeUndefined();
      expect(line.latencyMs).toBeGreaterThanOrEqual(0);
    }
  });

  it('invoice paths in the outbox: partially_paid -> underpaid at expiry, overpaid, expired -> paid_late, reverted', async () => {
    const shop = await createShop(stack, receiver.url('/inv'));
    const md = JSON.stringify(metadata);

    // Partly paid, then the invoice expires: underpaid.
    const under = await createInvoice(stack, shop, { amount: '10', lifetime_minutes: 5, metadata_json: md });
    await pay(under, '4');
    await waitInvoice(stack, shop, under.uuid, 'confirming');
    await mine('TRC20', under.required_confirmations);
    await waitInvoice(stack, shop, under.uuid, 'partially_paid');
    await advance(stack, 6 * 60);
    await waitInvoice(stack, shop, under.uuid, 'underpaid');
    const underRows = await outbox(under.uuid, 3);
    expect(underRows.map((x) => [x.type, x.data.status])).toEqual([
      ['invoice.confirming', 'confirming'],
      ['invoice.partially_paid', 'partially_paid'],
      ['invoice.underpaid', 'underpaid'],
    ]);
    expect(underRows.map((x) => x.data.received_amount)).toEqual(['4', '4', '4']);

    // More than asked for.
    const over = await createInvoice(stack, shop, { amount: '10', metadata_json: md });
    await pay(over, new Decimal(over.pay_amount).plus(2).toString());
    await waitInvoice(stack, shop, over.uuid, 'confirming');
    await mine('TRC20', over.required_confirmations);
    await waitInvoice(stack, shop, over.uuid, 'overpaid');
    expect((await outbox(over.uuid, 2)).map((x) => [x.type, x.data.status])).toEqual([
      ['invoice.confirming', 'confirming'],
      ['invoice.overpaid', 'overpaid'],
    ]);

    // Nothing arrives: expired; then a payment within the late-payment window: paid, paid_late.
    const late = await createInvoice(stack, shop, { amount: '3', lifetime_minutes: 5, metadata_json: md });
    await advance(stack, 5 * 60 + 1);
    await waitInvoice(stack, shop, late.uuid, 'expired');
    expect((await outbox(late.uuid, 1)).map((x) => [x.type, x.data.status])).toEqual([['invoice.expired', 'expired']]);
    await pay(late, late.pay_amount);
    await mine('TRC20', late.required_confirmations);
    await waitInvoice(stack, shop, late.uuid, 'paid');
    const lateRows = await outbox(late.uuid, 3);
    // The late payment is not `confirming` first: an ended invoice changes status once it is confirmed.
    expect(lateRows.map((x) => [x.type, x.data.status, x.data.paid_late])).toEqual([
      ['invoice.expired', 'expired', false],
      ['invoice.paid', 'paid', true],
      ['invoice.paid_late', 'paid', true],
    ]);

    // A payment that a reorg takes away before finality: reverted, back to pending.
    await mine('ARBITRUM', 25);
    const gone = await createInvoice(stack, shop, { amount: '8', network: 'ARBITRUM', metadata_json: md });
    await pay(gone, gone.pay_amount);
    await waitInvoice(stack, shop, gone.uuid, 'confirming');
    await mine('ARBITRUM', 2);
    await rpc((cb) => stack.clients.devnet.reorg({ network: 'ARBITRUM', depth: 4 }, stack.operator, cb));
    await waitInvoice(stack, shop, gone.uuid, 'pending');
    const goneRows = await outbox(gone.uuid, 2);
    expect(goneRows.map((x) => [x.type, x.data.status])).toEqual([
      ['invoice.confirming', 'confirming'],
      ['invoice.reverted', 'pending'],
    ]);
    expect(goneRows[1]!.data.received_amount).toBe('0');

    // Every event carries the invoice, the merchant's metadata and livemode (false: devnet).
    for (const [inv, rows] of [
      [under, underRows],
      [late, lateRows],
      [gone, goneRows],
    ] as const) {
      for (const row of rows) expect(row.data).toMatchObject({ uuid: inv.uuid, metadata, livemode: false });
    }
    for (const row of await outbox(over.uuid, 2)) expect(row.data).toMatchObject({ uuid: over.uuid, metadata, livemode: false });
  });
});
