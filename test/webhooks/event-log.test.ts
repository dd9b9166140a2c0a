import { startStack, createMerchant, eventually, signed, type Stack, type MerchantCredentials } from '../support/stack';
import { assertMatchesOpenApi } from '../support/openapi';
import { addressOf, advance, DAY_S, fund, mine, stackRpcs, WD_ENV, whitelist, type Rpcs } from '../withdrawals/support';
import { makeCert, Receiver } from './support';

/** One page as the merchant got it: the raw text, and the ids of its events in order. */
interface Page {
  readonly text: string;
  readonly ids: string[];
  readonly nextCursor: string;
  readonly hasMore: boolean;
}

interface OutboxRow {
  id: string;
  aggregate_id: string;
  tx_id: string;
  seq: string;
}

const INVOICES = 40;
const WITHDRAWALS = 6;

/**
 * GET /v1/events under load: many invoices paid and settling at once on devnet plus withdrawals,
 * while a reader polls with a small page. The log must give every outbox event of the merchant
 * exactly once, in one order that never goes back (nothing lands behind the cursor), with each
 * invoice's and withdrawal's events in the order they were written, and each event byte for byte
 * the body its webhook delivered.
 */
describe('GET /v1/events: the event log under concurrent writes', () => {
  let stack: Stack;
  let r: Rpcs;
  let m: MerchantCredentials;
  let receiver: Receiver;
  const payee = addressOf('TRC20', 'event-log-payee');

  beforeAll(async () => {
    const cert = makeCert();
    receiver = await Receiver.start(cert);
    stack = await startStack({ env: WD_ENV, daemon: { webhooks: { ca: cert.cert } } });
    r = stackRpcs(stack);
    m = await createMerchant(stack, { webhook_url: receiver.url('/log') });
    await fund(r, m.merchantId, '200');
    await whitelist(r, m.merchantId, 'TRC20', payee);
    await advance(r, DAY_S + 60);
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.down();
  });

  const outbox = async (merchantId: string): Promise<OutboxRow[]> =>
    stack.daemon.orm.em
      .fork()
      .execute<OutboxRow[]>('select e.id, e.aggregate_id, e.tx_id::text as tx_id, e.seq::text as seq from outbox_events e where e.merchant_id = ? order by e.seq', [merchantId]);

  it(`${INVOICES} invoices paid and ${WITHDRAWALS} withdrawals at once, read with limit=7 meanwhile: each event exactly once, in order, as delivered`, async () => {
    const pages: Page[] = [];
    let cursor: string | null = null;
    let stop = false;
    const readPage = async (): Promise<Page> => {
      const res = await signed(stack, m, 'GET', `/v1/events?limit=7${cursor === null ? '' : `&after=${cursor}`}`);
      expect(res.status).toBe(200);
      assertMatchesOpenApi('GET', '/v1/events', res.status, res.body);
      const page = { text: res.text, ids: (res.body.events as { id: string }[]).map((e) => e.id), nextCursor: res.body.next_cursor as string, hasMore: res.body.has_more as boolean };
      expect(page.ids.length).toBeLessThanOrEqual(7);
      // An empty page keeps the caller's cursor (polling from it forever is safe).
      if (page.ids.length === 0 && cursor !== null) expect(page.nextCursor).toBe(cursor);
      pages.push(page);
      cursor = page.nextCursor;
      return page;
    };
    const reader = (async () => {
      while (!stop) {
        const page = await readPage();
        if (!page.hasMore) await new Promise((res) => setTimeout(res, 15));
      }
    })();

    // Blocks keep coming while everything is in flight: confirmations, payouts and webhooks interleave.
    let mining = true;
    const miner = (async () => {
      while (mining) {
        await mine(r, 1);
        await new Promise((res) => setTimeout(res, 40));
      }
    })();

    const invoices = await Promise.all(Array.from({ length: INVOICES }, (_, i) => signed(stack, m, 'POST', '/v1/invoices', { amount: String(5 + (i % 4)), network: 'TRC20' })));
    const withdrawals = Promise.all(
      Array.from({ length: WITHDRAWALS }, (_, i) => signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: String(3 + i), reference: `log-${i}` })),
    );
    await Promise.all(invoices.map((inv) => payInvoice(inv.body)));
    const made = await withdrawals;
    for (const w of made) expect(w.status).toBe(201);

    const isDone = async (path: string, uuid: string, status: string): Promise<boolean> => (await signed(stack, m, 'GET', `${path}/${uuid}`)).body?.status === status;
    await eventually(
      async () => {
        for (const inv of invoices) if (!(await isDone('/v1/invoices', inv.body.uuid, 'paid'))) return undefined;
        for (const w of made) if (!(await isDone('/v1/withdrawals', w.body.uuid, 'completed'))) return undefined;
        return true;
      },
      20_000,
      'every invoice paid and every withdrawal completed',
    );
    mining = false;
    await miner;

    const rows = await outbox(m.merchantId);
    expect(rows.length).toBeGreaterThanOrEqual(2 + INVOICES * 2 + WITHDRAWALS * 2);
    // The reader catches up with every event written (a transaction in flight elsewhere only delays it).
    await eventually(async () => (new Set(pages.flatMap((p) => p.ids)).size >= rows.length ? true : undefined), 10_000, 'the reader to see every event');
    stop = true;
    await reader;
    // One more page after the end: empty, has_more false, the same cursor.
    const before = cursor;
    const last = await readPage();
    expect(last).toMatchObject({ ids: [], hasMore: false, nextCursor: before });

    const seen = pages.flatMap((p) => p.ids);
    // Exactly once, and exactly the merchant's outbox.
    expect(seen.length).toBe(new Set(seen).size);
    expect([...seen].sort()).toEqual(rows.map((e) => e.id).sort());
    // One order that never goes back: (tx_id, seq) strictly increasing along the log.
    const pos = new Map(rows.map((e) => [e.id, [BigInt(e.tx_id), BigInt(e.seq)] as const]));
    for (let i = 1; i < seen.length; i++) {
      const [t0, s0] = pos.get(seen[i - 1]!)!;
      const [t1, s1] = pos.get(seen[i]!)!;
      expect(t1 > t0 || (t1 === t0 && s1 > s0)).toBe(true);
    }
    // Per invoice/withdrawal: the order written (seq).
    const byAggregate = new Map<string, string[]>();
    for (const e of rows) byAggregate.set(e.aggregate_id, [...(byAggregate.get(e.aggregate_id) ?? []), e.id]);
    for (const [aggregate, written] of byAggregate) expect({ aggregate, ids: seen.filter((id) => written.includes(id)) }).toEqual({ aggregate, ids: written });

    // Byte for byte the delivered webhook bodies: each page is exactly those bodies joined.
    await eventually(async () => (new Set(receiver.at('/log').map((q) => q.json.id)).size >= rows.length ? true : undefined), 15_000, 'every webhook delivered');
    const delivered = new Map(receiver.at('/log').map((q) => [String(q.headers['webhook-id']), q.body.toString('utf8')]));
    for (const page of pages) {
      const bodies = page.ids.map((id) => delivered.get(id)!);
      expect(page.text).toBe(`{"events":[${bodies.join(',')}],"next_cursor":${JSON.stringify(page.nextCursor)},"has_more":${page.hasMore}}`);
    }
  }, 45_000);

  async function payInvoice(inv: { address: string; pay_amount: string }): Promise<void> {
    await new Promise<void>((resolve, reject) => stack.clients.devnet.pay({ network: 'TRC20', to: inv.address, amount: inv.pay_amount }, stack.operator, (err) => (err ? reject(err) : resolve())));
  }
});
