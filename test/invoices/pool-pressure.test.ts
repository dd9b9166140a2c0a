import { createHmac } from 'node:crypto';
import http from 'node:http';
import { createMerchant, eventually, signed, startStack, type MerchantCredentials, type SignedResponse, type Stack } from '../support/stack';
import { createInvoice } from './helpers';
import { headerReader, noteResponse } from '../support/openapi';

jest.setTimeout(180_000);

const INITIAL = 50;
const HALTED = ['POLYGON', 'ARBITRUM'];

/** The value of one sample line of a /metrics text. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/**
 * A signed POST over node:http with a bounded socket pool: all requests are in flight at once
 * (queued in the agent), without opening 1,000 connections at the same instant (beyond the
 * listen backlog the kernel drops connections: the client's failure, not the service's).
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 200 });
function post(stack: Stack, creds: MerchantCredentials, path: string, body: unknown): Promise<SignedResponse> {
  const raw = Buffer.from(JSON.stringify(body));
  const signature = createHmac('sha256', creds.apiSecret).update(raw).digest('hex');
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${stack.baseUrl}${path}`,
      { method: 'POST', agent, headers: { 'X-Service-Key': creds.apiKey, 'X-Service-Signature': signature, 'Content-Type': 'application/json', 'Content-Length': raw.length } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          noteResponse({ method: 'POST', target: path, status: res.statusCode ?? 0, header: headerReader(res.headers), text });
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), text, headers });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(raw);
  });
}

/**
 * Issue 37: the address pool never turns into a 500. A real daemon and gateway whose POLYGON and
 * ARBITRUM pools cannot refill past their first 50 addresses (a wrong second derivation after each
 * network's 50th, through the daemon's wrapDerivation option: the keeper halts those refills), so a burst is
 * larger than the pool for sure: requests wait (bounded), then get 503 pool_exhausted with
 * Retry-After, and nothing of them is written.
 */
describe('address pool under pressure (real gateway, daemon, PostgreSQL)', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack({
      env: { METRICS_PORT: '0', ADDRESS_POOL_MIN_FREE: '20', ADDRESS_POOL_BATCH: String(INITIAL) },
      daemon: {
        // The EVM networks share one index space (BEP20 may take indexes 0..49 first): the
        // halted networks' first INITIAL addresses agree, whatever their indexes, the rest do not.
        wrapDerivation: (derive) => {
          const derivedFor = new Map<string, number>();
          return async (network, from, count) => {
            const derived = await derive(network, from, count);
            if (!HALTED.includes(network)) return derived;
            const before = derivedFor.get(network) ?? 0;
            derivedFor.set(network, before + count);
            if (before + count <= INITIAL) return derived;
            return { addresses: derived.addresses, check: derived.check.map((a, k) => (before + k >= INITIAL ? `${a}x` : a)) };
          };
        },
      },
    });
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    agent.destroy();
    await stack?.stop();
  });

  const query = async <T>(sql: string, params: unknown[] = []): Promise<T[]> => stack.daemon.orm.em.fork().execute<T[]>(sql, params);
  /** Addresses of `network` an invoice can still get: free, or reserved by this engine for new invoices. */
  const available = async (network: string): Promise<number> =>
    Number((await query<{ n: string }>(`select count(*)::text as n from deposit_addresses where network = ? and state in ('free', 'reserved')`, [network]))[0]!.n);
  const invoiceCount = async (): Promise<number> => Number((await query<{ n: string }>('select count(*)::text as n from invoices'))[0]!.n);

  const expectOnly201or503 = (responses: readonly SignedResponse[], okStatus: number): { ok: number; exhausted: number } => {
    const byStatus = new Map<number, number>();
    for (const r of responses) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
    expect([...byStatus.keys()].filter((s) => s !== okStatus && s !== 503)).toEqual([]);
    for (const r of responses.filter((x) => x.status === 503)) {
      expect(r.body).toEqual({ error: { code: 'pool_exhausted', message: expect.stringMatching(/^no deposit address of \w+ is free right now; retry in 5 s$/) } });
      expect(r.headers.get('retry-after')).toBe('5');
    }
    return { ok: byStatus.get(okStatus) ?? 0, exhausted: byStatus.get(503) ?? 0 };
  };

  it('an invoice keeps its address on each network it chose: changing back reuses it; the 6th change in a row is 429', async () => {
    const inv = await createInvoice(stack, m, { amount: '10', network: 'BEP20' });
    const first = inv.address as string;
    const to = (network: string) => signed(stack, m, 'POST', `/v1/invoices/${inv.uuid}/network`, { network });
    const tron = await to('TRC20');
    expect(tron.status).toBe(200);
    expect((await to('BEP20')).body.address).toBe(first);
    expect((await to('TRC20')).body.address).toBe(tron.body.address);
    expect((await to('TON')).body.memo).toMatch(/^[0-9A-Z]{10}$/);
    const back = await to('BEP20');
    expect([back.status, back.body.address]).toEqual([200, first]);
    // At most one address per network per invoice, however often it changed.
    const held = await query<{ network: string; n: string }>('select network, count(*)::text as n from deposit_addresses where invoice_uuid = ? group by network order by network', [inv.uuid]);
    expect(held).toEqual([
      { network: 'BEP20', n: '1' },
      { network: 'TRC20', n: '1' },
    ]);
    // The per-invoice change limit (5 at once) holds for the merchant API too; a refused change changes nothing.
    const sixth = await to('TRC20');
    expect([sixth.status, sixth.body.error.code, sixth.body.error.field]).toEqual([429, 'too_many_network_changes', 'network']);
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body.address).toBe(first);
  });

  it('1,000 parallel creations on a 50-address pool: only 201 or 503 pool_exhausted (Retry-After), and a 503 wrote nothing', async () => {
    await eventually(async () => ((await query('select 1 from deposit_addresses where network = ?', ['POLYGON'])).length === INITIAL ? true : undefined), 30_000, 'the first POLYGON batch');
    const before = { invoices: await invoiceCount(), available: await available('POLYGON') };
    expect(before.available).toBeGreaterThan(0);
    const responses = await Promise.all(Array.from({ length: 1000 }, (_, i) => post(stack, m, '/v1/invoices', { amount: '5', network: 'POLYGON', order_id: `burst-${i}` })));
    const { ok, exhausted } = expectOnly201or503(responses, 201);
    expect(ok).toBe(before.available);
    expect(exhausted).toBe(1000 - before.available);
    // Exactly the answered invoices exist, each on an address of its own; nothing of a 503.
    expect(await invoiceCount()).toBe(before.invoices + ok);
    const created = new Set(responses.filter((r) => r.status === 201).map((r) => r.body.uuid as string));
    const rows = await query<{ uuid: string; order_id: string }>(`select uuid, order_id from invoices where order_id like 'burst-%'`);
    expect(new Set(rows.map((r) => r.uuid))).toEqual(created);
    const addresses = await query<{ n: string }>(`select count(distinct address)::text as n from invoices where order_id like 'burst-%'`);
    expect(Number(addresses[0]!.n)).toBe(ok);

    const metrics = await (await fetch(`http://127.0.0.1:${stack.daemon.metricsPort}/metrics`)).text();
    expect(sample(metrics, 'chainpay_address_pool_exhausted_total{network="POLYGON"}')).toBe(exhausted);
    expect(sample(metrics, 'chainpay_address_pool_wait_seconds_count{network="POLYGON",outcome="exhausted"}')).toBe(exhausted);
    expect(sample(metrics, 'chainpay_address_pool_addresses{network="POLYGON",state="free"}')).toBe(0);
    expect(sample(metrics, 'chainpay_address_pool_addresses{network="POLYGON",state="allocated"}')).toBe(INITIAL);
    expect(sample(metrics, 'chainpay_address_pool_refilled_addresses_total{network="BEP20"}')).toBeGreaterThanOrEqual(INITIAL);
  });

  it('parallel network changes on a small pool: only 200 or 503 pool_exhausted; a 503 left its invoice as it was', async () => {
    const invoices = [];
    for (let i = 0; i < 80; i++) invoices.push(await createInvoice(stack, m, { amount: '5' }));
    const before = await available('ARBITRUM');
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(80);
    const responses = await Promise.all(invoices.map((inv) => signed(stack, m, 'POST', `/v1/invoices/${inv.uuid}/network`, { network: 'ARBITRUM' })));
    const { ok, exhausted } = expectOnly201or503(responses, 200);
    expect([ok, exhausted]).toEqual([before, 80 - before]);
    for (const [k, inv] of invoices.entries()) {
      const now = (await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body;
      if (responses[k]!.status === 503) expect([now.network, now.address, now.pay_amount]).toEqual([null, null, inv.pay_amount]);
      else expect(now).toMatchObject({ network: 'ARBITRUM', address: responses[k]!.body.address });
    }
    const owners = await query<{ n: string }>(`select count(*)::text as n from deposit_addresses where network = 'ARBITRUM' and state = 'allocated'`);
    expect(Number(owners[0]!.n)).toBe(ok);
  });
});
