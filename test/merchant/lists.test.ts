import * as grpc from '@grpc/grpc-js';
import { startStack, createMerchant, signed, type Stack, type MerchantCredentials } from '../support/stack';
import { createInvoice } from '../invoices/helpers';
import { addressOf, advance, DAY_S, fund, stackRpcs, WD_ENV, whitelist } from '../withdrawals/support';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** GET /v1/invoices and GET /v1/withdrawals through the real gateway, gRPC daemon and PostgreSQL. */
describe('merchant lists with keyset cursors', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack({ env: WD_ENV });
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** Every page from the first, following next_cursor; `between` runs after each page. */
  async function readAll(creds: MerchantCredentials, path: string, key: 'invoices' | 'withdrawals', between: () => Promise<void> = async () => undefined): Promise<Json[]> {
    const all: Json[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 100; pages++) {
      const sep = path.includes('?') ? '&' : '?';
      const res = await signed(stack, creds, 'GET', cursor ? `${path}${sep}cursor=${encodeURIComponent(cursor)}` : path);
      expect(res.status).toBe(200);
      all.push(...res.body[key]);
      cursor = res.body.next_cursor;
      if (cursor === null) return all;
      await between();
    }
    throw new Error('too many pages');
  }

  function expectNewestFirst(rows: Json[]): void {
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1], rows[i]];
      const order = Date.parse(a.created_at) - Date.parse(b.created_at) || (a.uuid > b.uuid ? 1 : -1);
      expect(order).toBeGreaterThan(0);
    }
  }

  it('invoices: pages with concurrent inserts skip and repeat nothing; newest first', async () => {
    const shop = await createMerchant(stack, { name: 'Paging shop' });
    const before: string[] = [];
    // Created in parallel: several share a created_at millisecond, so the uuid tie-break is exercised.
    for (let round = 0; round < 3; round++) {
      const made = await Promise.all(Array.from({ length: 6 }, (_, i) => createInvoice(stack, shop, { amount: '5', network: 'TRC20', order_id: `o-${round}-${i}` })));
      before.push(...made.map((inv) => inv.uuid));
    }
    const during: string[] = [];
    const rows = await readAll(shop, '/v1/invoices?limit=4', 'invoices', async () => {
      const made = await Promise.all(Array.from({ length: 3 }, () => createInvoice(stack, shop, { amount: '6', network: 'BEP20' })));
      during.push(...made.map((inv) => inv.uuid));
    });
    const uuids = rows.map((r) => r.uuid);
    expect(new Set(uuids).size).toBe(uuids.length);
    expect(uuids.filter((u) => before.includes(u)).sort()).toEqual([...before].sort());
    // Inserted meanwhile are newer than every page read so far: none of them shows up behind a cursor.
    expect(uuids.filter((u) => during.includes(u))).toEqual([]);
    expectNewestFirst(rows);
    // Another merchant sees none of them.
    expect((await signed(stack, m, 'GET', '/v1/invoices?limit=100')).body.invoices.filter((r: Json) => before.includes(r.uuid))).toEqual([]);
    // A fresh read now has everything, once.
    const again = (await readAll(shop, '/v1/invoices?limit=100', 'invoices')).map((r) => r.uuid);
    expect(again.sort()).toEqual([...before, ...during].sort());
  });

  it('invoices: filters status, network, order_id, created_from / created_to', async () => {
    const shop = await createMerchant(stack, { name: 'Filter shop' });
    const a = await createInvoice(stack, shop, { amount: '5', network: 'TRC20', order_id: 'alpha' });
    const b = await createInvoice(stack, shop, { amount: '5', network: 'BEP20', order_id: 'beta' });
    const c = await createInvoice(stack, shop, { amount: '5', network: 'BEP20' });
    expect((await signed(stack, shop, 'POST', `/v1/invoices/${c.uuid}/cancel`, {})).status).toBe(200);
    const list = async (q: string) => (await signed(stack, shop, 'GET', `/v1/invoices?${q}`)).body.invoices.map((r: Json) => r.uuid);
    expect(await list('network=BEP20')).toEqual([c.uuid, b.uuid]);
    expect(await list('order_id=alpha')).toEqual([a.uuid]);
    expect(await list('status=canceled')).toEqual([c.uuid]);
    expect(await list('status=pending&network=BEP20')).toEqual([b.uuid]);
    // Worked out from the rows' own created_at (two may share a millisecond): from inclusive, to exclusive.
    const newestFirst = [a, b, c].sort((x, y) => Date.parse(y.created_at) - Date.parse(x.created_at) || (y.uuid > x.uuid ? 1 : -1));
    const at = Date.parse(b.created_at);
    expect(await list(`created_from=${encodeURIComponent(b.created_at)}`)).toEqual(newestFirst.filter((x) => Date.parse(x.created_at) >= at).map((x) => x.uuid));
    expect(await list(`created_to=${encodeURIComponent(b.created_at)}`)).toEqual(newestFirst.filter((x) => Date.parse(x.created_at) < at).map((x) => x.uuid));
    const full = await signed(stack, shop, 'GET', '/v1/invoices');
    expect(full.body).toMatchObject({ next_cursor: null });
    expect(full.body.invoices[0]).toMatchObject({ uuid: c.uuid, status: 'canceled', currency: 'USDT' });
  });

  it('invoices: a list leaves qr_svg out (the single invoice keeps it); every other field as GET /v1/invoices/{uuid} has it', async () => {
    const shop = await createMerchant(stack, { name: 'QR shop' });
    const made = await createInvoice(stack, shop, { amount: '5', network: 'TRC20' });
    const single = (await signed(stack, shop, 'GET', `/v1/invoices/${made.uuid}`)).body;
    expect(single.qr_svg).toMatch(/^<svg/);
    const listed = await signed(stack, shop, 'GET', '/v1/invoices');
    expect(listed.text).not.toContain('qr_svg');
    expect(listed.text).not.toContain('<svg');
    const { qr_svg: _drawn, ...rest } = single;
    expect(listed.body.invoices).toEqual([rest]);
    // The gRPC page (what the gateway lists from) carries no drawing either.
    const page = await new Promise<{ invoices: { qr_svg: string }[] }>((resolve, reject) => {
      const md = new grpc.Metadata();
      md.set('authorization', `Bearer ${stack.daemon.operatorToken}`);
      md.set('x-merchant-id', shop.merchantId);
      stack.clients.invoices.pageInvoices({ query: '' }, md, (err: grpc.ServiceError | null, res: { invoices: { qr_svg: string }[] }) => (err ? reject(err) : resolve(res)));
    });
    expect(page.invoices.map((i) => i.qr_svg)).toEqual(['']);
  });

  it('bad queries: 422 with the parameter as field; nothing else', async () => {
    const cases: Array<[string, string, string]> = [
      ['limit=0', 'invalid_limit', 'limit'],
      ['limit=101', 'invalid_limit', 'limit'],
      ['limit=abc', 'invalid_limit', 'limit'],
      ['status=done', 'invalid_status', 'status'],
      ['network=nope', 'invalid_network', 'network'],
      ['created_from=yesterday', 'invalid_created_from', 'created_from'],
      ['cursor=AAAA', 'invalid_cursor', 'cursor'],
      ['offset=10', 'unknown_field', 'offset'],
      ['limit=1&limit=2', 'invalid_limit', 'limit'],
    ];
    for (const [q, code, field] of cases) {
      const res = await signed(stack, m, 'GET', `/v1/invoices?${q}`);
      expect({ q, status: res.status, code: res.body?.error?.code, field: res.body?.error?.field }).toEqual({ q, status: 422, code, field });
    }
    expect((await signed(stack, m, 'GET', '/v1/withdrawals?order_id=x')).body.error).toMatchObject({ code: 'unknown_field', field: 'order_id' });
    expect((await fetch(`${stack.baseUrl}/v1/invoices`)).status).toBe(401);
  });

  it('withdrawals: pages with concurrent inserts skip and repeat nothing; reference and status filters', async () => {
    const r = stackRpcs(stack);
    const shop = await createMerchant(stack, { name: 'Payout shop' });
    const payee = addressOf('TRC20', 'lists-payee');
    await fund(r, shop.merchantId, '200');
    await whitelist(r, shop.merchantId, 'TRC20', payee);
    await advance(r, DAY_S);
    const create = async (reference: string) => {
      const res = await signed(stack, shop, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '2', reference });
      expect(res.status).toBe(201);
      return res.body.uuid as string;
    };
    const before = await Promise.all(Array.from({ length: 7 }, (_, i) => create(`ref-${i}`)));
    let n = 0;
    const rows = await readAll(shop, '/v1/withdrawals?limit=3', 'withdrawals', async () => {
      await Promise.all([create(`late-${n++}`), create(`late-${n++}`)]);
    });
    const uuids = rows.map((row) => row.uuid);
    expect(new Set(uuids).size).toBe(uuids.length);
    expect(uuids.filter((u) => before.includes(u)).sort()).toEqual([...before].sort());
    expectNewestFirst(rows);
    const byRef = await signed(stack, shop, 'GET', '/v1/withdrawals?reference=ref-3');
    expect(byRef.body.withdrawals.map((w: Json) => w.uuid)).toEqual([before[3]]);
    const status = byRef.body.withdrawals[0].status;
    const byStatus = await signed(stack, shop, 'GET', `/v1/withdrawals?status=${status}&limit=100`);
    expect(byStatus.body.withdrawals.every((w: Json) => w.status === status)).toBe(true);
    expect((await signed(stack, m, 'GET', '/v1/withdrawals')).body).toEqual({ withdrawals: [], next_cursor: null });
  });
});
