import Decimal from 'decimal.js';

/**
 * Requests against the /v1 surface, drawn from a seeded generator: a valid request with one part
 * broken (or none), so that the expected verdict is known for most cases. `expect`:
 * - 'accept': a well-formed request the spec allows: 2xx, and what was sent is stored exactly;
 * - 'refuse': the spec, docs/api.md or a documented limit refuses it: 4xx, nothing written;
 * - 'either': a value whose verdict the fuzzer does not model; never a 5xx, and when accepted it is
 *   stored exactly as sent.
 */
export type Verdict = 'accept' | 'refuse' | 'either';

export interface FuzzCase {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  /** Raw body bytes as sent (undefined: no body). */
  readonly body?: string;
  /** How the request is signed: rightly, wrongly, not at all, or for another body than the one sent. */
  readonly signing: 'valid' | 'wrong' | 'none' | 'other-body';
  readonly contentType: string | null;
  readonly expect: Verdict;
  /** Fields to find back exactly in the stored invoice when accepted (POST /v1/invoices only). */
  readonly echo?: Record<string, unknown>;
  /** The metadata JSON text as sent, when the case sends one. */
  readonly metadata?: string;
}

export interface FuzzWorld {
  /** Network code → min_invoice as served by GET /v1/networks. */
  readonly minInvoice: ReadonlyMap<string, string>;
  /** Invoices created by this run (for GET and network-change cases). */
  readonly invoiceUuids: readonly string[];
}

type Random = () => number;
const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: Random, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

/** Strings a careless or hostile client sends: each with its verdict as a free-text field of up to 200 code points. */
function freeText(r: Random): { value: unknown; verdict: Verdict } {
  const k = int(r, 0, 13);
  switch (k) {
    case 0:
      return { value: `ord-${int(r, 0, 1e9)}`, verdict: 'accept' };
    case 1:
      return { value: 'é'.repeat(int(r, 1, 200)), verdict: 'accept' };
    case 2:
      return { value: '😀'.repeat(int(r, 101, 200)), verdict: 'accept' }; // over 200 UTF-16 units, within 200 code points
    case 3:
      return { value: 'x'.repeat(201), verdict: 'refuse' };
    case 4:
      return { value: `a\u0000b${int(r, 0, 1e6)}`, verdict: 'refuse' }; // PostgreSQL cannot store NUL
    case 5:
      return { value: `a\ud800b${int(r, 0, 1e6)}`, verdict: 'refuse' }; // a lone surrogate
    case 6:
      return { value: `z\udfff${int(r, 0, 1e6)}`, verdict: 'refuse' };
    case 7:
      return { value: int(r, 0, 1000), verdict: 'refuse' };
    case 8:
      return { value: [], verdict: 'refuse' };
    case 9:
      return { value: { a: 1 }, verdict: 'refuse' };
    case 10:
      return { value: true, verdict: 'refuse' };
    case 11:
      return { value: '', verdict: 'either' };
    case 12:
      return { value: ` \t\n${String.fromCodePoint(int(r, 0x20, 0x2fff))}${int(r, 0, 1e9)}`, verdict: 'either' };
    default:
      return { value: `${String.fromCodePoint(int(r, 0x1f300, 0x1faff))}-${int(r, 0, 1e9)}-${String.fromCodePoint(int(r, 0xe000, 0xf8ff))}`, verdict: 'accept' };
  }
}

function amountValue(r: Random, min: string): { value: unknown; verdict: Verdict } {
  const k = int(r, 0, 15);
  const above = new Decimal(min).plus(new Decimal(int(r, 0, 100_000)).div(100));
  switch (k) {
    case 0:
    case 1:
    case 2:
      return { value: above.toFixed(), verdict: 'accept' };
    case 3:
      return { value: above.toFixed(8), verdict: 'accept' };
    case 4:
      return { value: above.plus('0.000000001').toFixed(9), verdict: 'refuse' };
    case 5:
      return { value: new Decimal(min).minus('0.01').toFixed(), verdict: 'refuse' };
    case 6:
      return { value: pick(r, ['-1', '0', '-0', '0.00']), verdict: 'refuse' };
    case 7:
      return { value: pick(r, ['1e3', '0x10', ' 10', '10 ', '10.', '.5', '+10', '1_000', '１０', 'NaN', 'Infinity', '']), verdict: 'refuse' };
    case 8:
      return { value: Number(above.toFixed(2)), verdict: 'refuse' };
    case 9:
      return { value: null, verdict: 'refuse' };
    case 10:
      return { value: '9'.repeat(int(r, 19, 60)), verdict: 'refuse' };
    case 11:
      return { value: `10\u0000`, verdict: 'refuse' };
    case 12:
      return { value: [above.toFixed()], verdict: 'refuse' };
    default:
      return { value: above.toFixed(int(r, 0, 8)), verdict: 'accept' };
  }
}

function urlValue(r: Random, field: string): { value: unknown; verdict: Verdict } {
  const k = int(r, 0, 11);
  switch (k) {
    case 0:
      return { value: `https://shop${int(r, 0, 999)}.example/return?o=${int(r, 0, 1e6)}`, verdict: field === 'webhook_url' ? 'either' : 'accept' };
    case 1:
      return { value: 'http://shop.example/x', verdict: field === 'webhook_url' ? 'refuse' : 'either' };
    case 2:
      return { value: pick(r, ['javascript:alert(1)', 'data:text/html,x', 'ftp://x.example/', 'not a url', '//x.example']), verdict: 'refuse' };
    case 3:
      return {
        value: `https://${pick(r, ['10.0.0.1', '169.254.169.254', '192.168.1.1', '100.64.0.1', '[fc00::1]', '[fe80::1]', '[::ffff:10.0.0.1]', '172.16.5.4'])}/hook`,
        verdict: field === 'webhook_url' ? 'refuse' : 'either',
      };
    case 4:
      return { value: `https://x.example/${'a'.repeat(int(r, 2100, 4000))}`, verdict: 'either' };
    case 5:
      return { value: `https://x.example/\u0000`, verdict: 'refuse' };
    case 6:
      return { value: int(r, 0, 9), verdict: 'refuse' };
    default:
      return { value: `https://pay.example/${int(r, 0, 1e9)}`, verdict: field === 'webhook_url' ? 'either' : 'accept' };
  }
}

/** JSON text of metadata: plain objects echo exactly; a too-deep one is refused; odd numbers must come back as written. */
function metadataText(r: Random): { text: string; verdict: Verdict } {
  const k = int(r, 0, 7);
  switch (k) {
    case 0:
      return { text: `{"order":${int(r, 0, 1e6)},"tags":["a","b"],"nested":{"x":null,"y":true}}`, verdict: 'accept' };
    case 1:
      return { text: `{"big":${'9'.repeat(int(r, 17, 40))},"exp":1e400,"neg":-0.000000000000000000001}`, verdict: 'either' };
    case 2: {
      const depth = int(r, 3000, 6000);
      return { text: `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`, verdict: 'refuse' };
    }
    case 3:
      return { text: '[1,2,3]', verdict: 'refuse' };
    case 4:
      return { text: '"text"', verdict: 'refuse' };
    case 5:
      return { text: `{"s":"\\u0000"}`, verdict: 'either' };
    case 6:
      return { text: `{"s":"\\ud800"}`, verdict: 'either' };
    default:
      return { text: `{"k${int(r, 0, 99)}":"${'v'.repeat(int(r, 0, 50))}"}`, verdict: 'accept' };
  }
}

const worst = (a: Verdict, b: Verdict): Verdict => (a === 'refuse' || b === 'refuse' ? 'refuse' : a === 'either' || b === 'either' ? 'either' : 'accept');

/** POST /v1/invoices with zero to three fields drawn from the hostile sets above. */
function createInvoice(r: Random, world: FuzzWorld): FuzzCase {
  const network = pick(r, [...world.minInvoice.keys()]);
  const fields: [string, string][] = [];
  const echo: Record<string, unknown> = {};
  let verdict: Verdict = 'accept';
  let metadata: string | undefined;
  const set = (name: string, value: unknown, v: Verdict): void => {
    fields.push([name, JSON.stringify(value)]);
    if (typeof value === 'string' || value === null) echo[name] = value;
    verdict = worst(verdict, v);
  };
  // Without a network the amount must meet the lowest min_invoice of the active networks (DESIGN.md).
  const withNetwork = r() < 0.8;
  const min = withNetwork ? world.minInvoice.get(network)! : Decimal.min(...world.minInvoice.values()).toFixed();
  const amount = int(r, 0, 2) === 0 ? amountValue(r, min) : { value: new Decimal(min).plus(1).toFixed(), verdict: 'accept' as Verdict };
  set('amount', amount.value, amount.verdict);
  if (withNetwork) {
    if (r() < 0.9) set('network', network, 'accept');
    else set('network', pick(r, ['trc20', 'BTC', 'TRC-20', '', 'ETH', 'SOLANA ']), 'refuse');
  }
  for (let i = int(r, 0, 3); i > 0; i--) {
    const field = pick(r, ['order_id', 'title', 'fee_payer', 'lifetime_minutes', 'webhook_url', 'return_url', 'cancel_url', 'metadata', 'unknown', 'currency']);
    if (fields.some(([f]) => f === field)) continue;
    if (field === 'order_id' || field === 'title') {
      const t = freeText(r);
      set(field, t.value, t.verdict);
    } else if (field === 'fee_payer')
      set(
        field,
        ...(pick(r, [
          ['buyer', 'accept'],
          ['merchant', 'accept'],
          ['BUYER', 'refuse'],
          ['payer', 'refuse'],
          [1, 'refuse'],
        ]) as [unknown, Verdict]),
      );
    else if (field === 'lifetime_minutes')
      set(
        field,
        ...(pick(r, [
          [int(r, 5, 10080), 'accept'],
          [4, 'refuse'],
          [10081, 'refuse'],
          [5.5, 'refuse'],
          ['60', 'refuse'],
          [-1, 'refuse'],
          [1e300, 'refuse'],
        ]) as [unknown, Verdict]),
      );
    else if (field.endsWith('_url')) {
      const u = urlValue(r, field);
      set(field, u.value, u.verdict);
    } else if (field === 'metadata') {
      const m = metadataText(r);
      fields.push(['metadata', m.text]);
      metadata = m.text;
      verdict = worst(verdict, m.verdict);
    } else if (field === 'currency')
      set(
        field,
        ...(pick(r, [
          ['USDT', 'accept'],
          ['usdt', 'refuse'],
          ['BTC', 'refuse'],
        ]) as [unknown, Verdict]),
      );
    else set(pick(r, ['netwrok', 'amount_usd', '__proto__', 'constructor', 'status']), 'x', 'refuse');
  }
  const body = `{${fields.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
  return {
    name: `create ${fields.map(([f]) => f).join('+')}`,
    method: 'POST',
    path: '/v1/invoices',
    body,
    signing: 'valid',
    contentType: 'application/json',
    expect: verdict,
    echo: verdict === 'refuse' ? undefined : echo,
    metadata,
  };
}

/** Broken envelopes: JSON, content type, signature, method, path. Always refused. */
function envelope(r: Random, world: FuzzWorld): FuzzCase {
  const base = {
    method: 'POST',
    path: '/v1/invoices',
    body: `{"amount":"${new Decimal(world.minInvoice.get('TRC20') ?? '10').plus(1).toFixed()}","network":"TRC20"}`,
    signing: 'valid' as const,
    contentType: 'application/json',
    expect: 'refuse' as Verdict,
  };
  const k = int(r, 0, 11);
  if (k === 0) return { ...base, name: 'malformed json', body: pick(r, ['{', '{"amount":}', '{"amount":"1",}', "{'a':1}", '\u0000', '{"amount":"1"}garbage']) };
  if (k === 1) return { ...base, name: 'top-level not an object', body: pick(r, ['[]', '"x"', '1', 'null', 'true']) };
  if (k === 2) return { ...base, name: 'empty body', body: '' };
  if (k === 3) return { ...base, name: 'wrong content type', contentType: pick(r, ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) };
  if (k === 4) return { ...base, name: 'bad signature', signing: 'wrong' };
  if (k === 5) return { ...base, name: 'unsigned', signing: 'none' };
  if (k === 6) return { ...base, name: 'signed another body', signing: 'other-body' };
  if (k === 7) return { ...base, name: 'over 64 KiB', body: `{"amount":"11","network":"TRC20","title":"${'t'.repeat(70_000)}"}` };
  if (k === 8)
    return {
      ...base,
      name: 'other method',
      method: pick(r, ['PUT', 'DELETE', 'PATCH']),
      path: pick(r, ['/v1/invoices', '/v1/withdrawals', `/v1/invoices/${pick(r, world.invoiceUuids.length ? world.invoiceUuids : ['00000000-0000-4000-8000-000000000000'])}`]),
    };
  if (k === 9)
    return {
      ...base,
      name: 'unknown path',
      method: pick(r, ['GET', 'POST']),
      path: pick(r, ['/v1/invoice', '/v2/invoices', '/v1/invoices/x/y/z', '/v1/%00', '/v1/invoices/..%2Fnetworks', `/v1/${'a'.repeat(3000)}`]),
    };
  if (k === 10)
    return {
      ...base,
      name: 'get not a uuid',
      method: 'GET',
      body: undefined,
      contentType: null,
      path: `/v1/invoices/${pick(r, ['x', '1', "'; drop table invoices;--", '%00', 'ZZZZZZZZ-0000-4000-8000-000000000000'])}`,
    };
  return { ...base, name: 'get unknown invoice', method: 'GET', body: undefined, contentType: null, path: '/v1/invoices/00000000-0000-4000-8000-000000000000' };
}

/** POST /v1/withdrawals for a merchant with no balance and no whitelist: every one is refused. */
function withdrawal(r: Random): FuzzCase {
  const amount = pick(r, ['5', '10.5', '-1', '0', '1e3', 'abc', '1.1234567', '99999999999999999999']);
  const reference = freeText(r).value;
  const address = pick(r, ['TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL', '0x0000000000000000000000000000000000000001', '', 'x', '\u0000']);
  const body = JSON.stringify({ network: pick(r, ['TRC20', 'BEP20', 'TON', 'XYZ']), address, amount, reference });
  return { name: 'withdrawal', method: 'POST', path: '/v1/withdrawals', body, signing: 'valid', contentType: 'application/json', expect: 'refuse' };
}

/** A network change on one of this run's invoices: allowed or refused by its state; never a 5xx. */
function networkChange(r: Random, world: FuzzWorld): FuzzCase {
  const uuid = world.invoiceUuids.length ? pick(r, world.invoiceUuids) : '00000000-0000-4000-8000-000000000000';
  const network = pick(r, [...world.minInvoice.keys(), 'BTC', 'trc20', '']);
  const body = r() < 0.9 ? JSON.stringify({ network }) : JSON.stringify({ network, extra: 1 });
  return {
    name: 'network change',
    method: 'POST',
    path: `/v1/invoices/${uuid}/network`,
    body,
    signing: 'valid',
    contentType: 'application/json',
    expect: world.minInvoice.has(network) && !body.includes('extra') ? 'either' : 'refuse',
  };
}

export function nextCase(r: Random, world: FuzzWorld): FuzzCase {
  const k = r();
  if (k < 0.55) return createInvoice(r, world);
  if (k < 0.78) return envelope(r, world);
  if (k < 0.88) return withdrawal(r);
  if (k < 0.95) return networkChange(r, world);
  return eventLog(r);
}

/**
 * The event log, redelivery and the test ping (docs/api.md, Event log) for a merchant without a
 * webhook URL: hostile queries and ids are refused (422, 404), a ping or a redelivery has nowhere
 * to go (409); only plain reads of the log are accepted. Nothing may be written by any of them.
 */
function eventLog(r: Random): FuzzCase {
  const base = { signing: 'valid' as const, contentType: 'application/json', body: '{}', method: 'POST' };
  const k = int(r, 0, 3);
  if (k === 0) {
    const [query, expect] = pick(r, [
      ['', 'accept'],
      ['?limit=5', 'accept'],
      ['?limit=100', 'accept'],
      ['?limit=0', 'refuse'],
      ['?limit=101', 'refuse'],
      ['?limit=1.5', 'refuse'],
      ['?limit=abc', 'refuse'],
      ['?after=x', 'refuse'],
      ['?after=ZTEuMS4x%00', 'refuse'],
      [`?after=${'A'.repeat(5000)}`, 'refuse'],
      ['?after=a&after=b', 'refuse'],
      ['?status=pending', 'refuse'],
      ['?after=', 'either'],
    ] as [string, Verdict][]);
    return { ...base, name: 'event log query', method: 'GET', body: undefined, contentType: null, path: `/v1/events${query}`, expect };
  }
  if (k === 1) {
    const id = pick(r, ['evt_000000000000000000000000', 'evt_zz', 'x', '%00', "'; drop table outbox_events;--", 'evt_'.padEnd(300, 'f')]);
    return { ...base, name: 'redeliver unknown event', path: `/v1/events/${encodeURIComponent(id)}/redeliver`, body: pick(r, ['{}', '{"x":1}', '[]']), expect: 'refuse' };
  }
  return { ...base, name: 'test ping without a webhook URL', path: '/v1/webhooks/test', body: pick(r, ['{}', '{"url":"http://127.0.0.1/"}', '']), expect: 'refuse' };
}
