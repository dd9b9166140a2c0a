import { ChainpayClient, ChainpayError, type Invoice, type LoggedEvent } from '../src';
import { FakeServer, type Answer, type Seen } from './fake-server';

/** Invoices i-0 … i-6 (newest first), paged by a keyset cursor "c<index>" like the gateway's. */
const INVOICES = Array.from({ length: 7 }, (_, i) => ({ uuid: `i-${i}`, status: 'paid', amount: `${i}.5` }) as unknown as Invoice);
const EVENTS: LoggedEvent[] = [];
const addEvents = (n: number): void => {
  for (let i = 0; i < n; i++) {
    const k = EVENTS.length;
    EVENTS.push({ id: `evt_${k}`, type: 'invoice.paid', created_at: '2026-11-26T00:00:00Z', data: { uuid: `i-${k}` } } as unknown as LoggedEvent);
  }
};

function answer(req: Seen): Answer {
  const url = new URL(req.target, 'http://x');
  const limit = Number(url.searchParams.get('limit') ?? 20);
  if (url.pathname === '/v1/invoices') {
    const from = url.searchParams.has('cursor') ? Number(url.searchParams.get('cursor')!.slice(1)) + 1 : 0;
    const rows = INVOICES.slice(from, from + limit);
    const last = from + rows.length - 1;
    return { status: 200, body: { invoices: rows, next_cursor: last < INVOICES.length - 1 ? `c${last}` : null } };
  }
  if (url.pathname === '/v1/events') {
    const from = url.searchParams.has('after') ? Number(url.searchParams.get('after')!.slice(2)) : 0;
    const rows = EVENTS.slice(from, from + limit);
    return { status: 200, body: { events: rows, next_cursor: `e-${from + rows.length}`, has_more: from + rows.length < EVENTS.length } };
  }
  if (url.pathname === '/v1/balance') return { status: 422, body: { error: { code: 'stale_timestamp', message: 'too old', details: { server_time: 1767225600 } } } };
  if (url.pathname === '/v1/withdrawals') return { status: 503, headers: { 'Retry-After': '5' }, body: { error: { code: 'pool_exhausted', message: 'wait', field: 'network' } } };
  return { status: 502, body: '<html>bad gateway</html>' };
}

describe('cursor iteration', () => {
  let server: FakeServer;
  let client: ChainpayClient;
  beforeAll(async () => {
    server = await FakeServer.start(answer);
    client = new ChainpayClient({ baseUrl: server.baseUrl, apiKey: 'pk_1', apiSecret: 'sk_1' });
  });
  afterAll(async () => {
    await server?.stop();
  });
  beforeEach(() => {
    server.seen.length = 0;
  });
  const targets = (): string[] => server.seen.map((s) => s.target);

  it('lists follow next_cursor page by page, keeping the filters, until it is null', async () => {
    const got: string[] = [];
    for await (const inv of client.invoices.list({ status: 'paid', limit: 3 })) got.push(inv.uuid);
    expect(got).toEqual(INVOICES.map((i) => i.uuid));
    expect(targets()).toEqual(['/v1/invoices?status=paid&limit=3', '/v1/invoices?status=paid&limit=3&cursor=c2', '/v1/invoices?status=paid&limit=3&cursor=c5']);
    expect(INVOICES[1]!.amount).toBe('1.5');
  });

  it('pages are fetched only as the loop asks: a break after 2 items costs one request', async () => {
    const got: string[] = [];
    for await (const inv of client.invoices.list({ limit: 3 })) {
      got.push(inv.uuid);
      if (got.length === 2) break;
    }
    expect(got).toEqual(['i-0', 'i-1']);
    expect(server.seen).toHaveLength(1);
  });

  it('a list resumed from its cursor after a break mid-page repeats that page, never skips', async () => {
    const list = client.invoices.list({ limit: 3 });
    const first: string[] = [];
    for await (const inv of list) {
      first.push(inv.uuid);
      if (first.length === 5) break; // within the second page
    }
    expect(list.cursor).toBe('c2');
    const rest: string[] = [];
    for await (const inv of client.invoices.list({ limit: 3 }, list.cursor)) rest.push(inv.uuid);
    expect(rest).toEqual(['i-3', 'i-4', 'i-5', 'i-6']);
    expect(await client.invoices.list({ limit: 2 }).toArray(3)).toHaveLength(3);
  });

  it('the event log runs until has_more is false; its cursor resumes with only the newer events', async () => {
    addEvents(5);
    const log = client.events.list({ limit: 2 });
    expect((await log.toArray()).map((e) => e.id)).toEqual(['evt_0', 'evt_1', 'evt_2', 'evt_3', 'evt_4']);
    expect(targets()).toEqual(['/v1/events?limit=2', '/v1/events?limit=2&after=e-2', '/v1/events?limit=2&after=e-4']);
    expect(log.cursor).toBe('e-5');

    addEvents(2);
    const later = client.events.list({ after: log.cursor, limit: 10 });
    expect((await later.toArray()).map((e) => e.id)).toEqual(['evt_5', 'evt_6']);
    expect(later.cursor).toBe('e-7');
    // Caught up: one request, nothing new, the cursor stays.
    expect(await client.events.list({ after: later.cursor }).toArray()).toEqual([]);
    expect(targets().at(-1)).toBe('/v1/events?after=e-7');
  });

  it('errors: ChainpayError with status, code, message, field, details and Retry-After', async () => {
    const stale = await client.getBalance().catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ChainpayError);
    expect(stale).toMatchObject({ status: 422, code: 'stale_timestamp', message: 'too old', field: undefined, details: { server_time: 1767225600 }, request: 'GET /v1/balance' });
    const busy = await client.withdrawals
      .list()
      .toArray()
      .catch((e: unknown) => e);
    expect(busy).toMatchObject({ status: 503, code: 'pool_exhausted', field: 'network', retryAfter: 5 });
    // A body that is not chainpay's (a proxy's page): the status still tells.
    expect(await client.getInvoice('x').catch((e: unknown) => e)).toMatchObject({ name: 'ChainpayError', status: 502, code: 'http_502' });
  });
});
