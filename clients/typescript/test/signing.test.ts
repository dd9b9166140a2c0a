import { createHmac } from 'node:crypto';
import { ChainpayClient, signBody, signRequest, signTimestamped } from '../src';
import { FakeServer, type Seen } from './fake-server';

const SECRET = 'sk_test_secret';
const BODY = '{"amount":"10.5","order_id":"A-1"}';
const TS = 1767225600;

/** The verifier's side, written here with node:crypto alone (docs/api.md, "Signing requests"). */
const hmacHex = (secret: string, data: string | Buffer): string => createHmac('sha256', secret).update(data).digest('hex');

describe('request signing', () => {
  it('body scheme: hex HMAC-SHA256 of the body; a GET signs the empty string (vectors from openssl)', () => {
    // printf '%s' "$BODY" | openssl dgst -sha256 -hmac sk_test_secret -hex
    expect(signBody(SECRET, BODY)).toBe('f105bf8abce37b64fbf1bdb73e9275235201bfaad060fb12d99997c35e325b2c');
    expect(signBody(SECRET, '')).toBe('5d2769e7466f1b3613ce6e928c472b000a19150e99ea6d693b40bd64e83a8450');
    expect(signBody(SECRET, Buffer.from(BODY))).toBe(hmacHex(SECRET, BODY));
    expect(signBody(SECRET, '{"title":"café ☕"}')).toBe(hmacHex(SECRET, Buffer.from('{"title":"café ☕"}', 'utf8')));
  });

  it('timestamped scheme: hex HMAC-SHA256 of timestamp.method.path.body (vectors from openssl)', () => {
    expect(signTimestamped(SECRET, { timestamp: TS, method: 'GET', path: '/v1/invoices?limit=5&status=paid', body: '' })).toBe('62985af77148fad528f351be51da2791fd17ef2e97e575b3269f9bf2e29f5016');
    expect(signTimestamped(SECRET, { timestamp: TS, method: 'POST', path: '/v1/invoices', body: BODY })).toBe('80e5c34efc6ceaac23a5f0e361c607f0131e81cd17fc49f44443f1a0fd3f64f4');
    // Each part is signed: another method, path, body or time is another signature.
    const base = { timestamp: TS, method: 'POST', path: '/v1/invoices', body: BODY };
    const variants = [{ method: 'PUT' }, { path: '/v1/invoices?' }, { body: `${BODY} ` }, { timestamp: TS + 1 }].map((v) => signTimestamped(SECRET, { ...base, ...v }));
    expect(new Set([signTimestamped(SECRET, base), ...variants]).size).toBe(5);
    expect(() => signTimestamped(SECRET, { ...base, timestamp: 1.5 })).toThrow(RangeError);
  });

  it('signRequest: the headers of each scheme', () => {
    expect(signRequest({ apiKey: 'pk_1', apiSecret: SECRET, scheme: 'body', method: 'GET', path: '/v1/balance', body: '' })).toEqual({
      'X-Service-Key': 'pk_1',
      'X-Service-Signature': hmacHex(SECRET, ''),
    });
    expect(signRequest({ apiKey: 'pk_1', apiSecret: SECRET, scheme: 'timestamped', method: 'GET', path: '/v1/balance', body: '', timestamp: TS })).toEqual({
      'X-Service-Key': 'pk_1',
      'X-Service-Timestamp': String(TS),
      'X-Service-Signature': hmacHex(SECRET, `${TS}.GET./v1/balance.`),
    });
  });

  describe('what the client sends verifies on the receiving side', () => {
    let server: FakeServer;
    beforeAll(async () => {
      server = await FakeServer.start((req) => ({ status: req.method === 'POST' ? 201 : 200, body: { invoices: [], next_cursor: null } }));
    });
    afterAll(async () => {
      await server?.stop();
    });
    const last = (): Seen => server.seen[server.seen.length - 1]!;

    it('body scheme: the signature is the HMAC of the received body bytes; no timestamp header', async () => {
      const client = new ChainpayClient({ baseUrl: server.baseUrl, apiKey: 'pk_1', apiSecret: SECRET, signing: 'body' });
      await client.createInvoice({ amount: '10.5', order_id: 'A-1', title: 'café ☕', metadata: { n: 1 } });
      const seen = last();
      expect(seen.method).toBe('POST');
      expect(seen.headers['content-type']).toBe('application/json');
      expect(seen.headers['x-service-key']).toBe('pk_1');
      expect(seen.headers['x-service-timestamp']).toBeUndefined();
      expect(seen.headers['x-service-signature']).toBe(hmacHex(SECRET, seen.body));
      expect(JSON.parse(seen.body.toString('utf8'))).toEqual({ amount: '10.5', order_id: 'A-1', title: 'café ☕', metadata: { n: 1 } });

      await client.listInvoices({ status: 'paid', limit: 5 });
      expect(last().headers['x-service-signature']).toBe(hmacHex(SECRET, ''));
    });

    it('timestamped scheme: signed over the request target as received, query string included', async () => {
      const client = new ChainpayClient({ baseUrl: server.baseUrl, apiKey: 'pk_1', apiSecret: SECRET, signing: 'timestamped', now: () => TS * 1000 + 999 });
      await client.listInvoices({ status: 'paid', created_from: '2026-01-31T00:00:00+02:00', limit: 5 });
      const seen = last();
      expect(seen.target).toBe('/v1/invoices?status=paid&created_from=2026-01-31T00%3A00%3A00%2B02%3A00&limit=5');
      expect(seen.headers['x-service-timestamp']).toBe(String(TS));
      expect(seen.headers['x-service-signature']).toBe(hmacHex(SECRET, `${TS}.GET.${seen.target}.`));

      await client.cancelInvoice('0b9a1c1e-0000-4000-8000-000000000001');
      const post = last();
      expect(post.target).toBe('/v1/invoices/0b9a1c1e-0000-4000-8000-000000000001/cancel');
      expect(post.body.toString()).toBe('{}');
      expect(post.headers['x-service-signature']).toBe(hmacHex(SECRET, Buffer.concat([Buffer.from(`${TS}.POST.${post.target}.`), post.body])));
    });

    it('a path parameter is one encoded segment; a base URL with a path keeps (and signs) it', async () => {
      const client = new ChainpayClient({ baseUrl: `${server.baseUrl}/pay/`, apiKey: 'pk_1', apiSecret: SECRET, now: () => TS * 1000 });
      await client.getInvoice('a/b?c');
      const seen = last();
      expect(seen.target).toBe('/pay/v1/invoices/a%2Fb%3Fc');
      expect(seen.headers['x-service-signature']).toBe(hmacHex(SECRET, `${TS}.GET./pay/v1/invoices/a%2Fb%3Fc.`));
    });

    it('the unsigned endpoints carry no key or signature', async () => {
      const client = new ChainpayClient({ baseUrl: server.baseUrl, apiKey: 'pk_1', apiSecret: SECRET });
      await client.listNetworks();
      expect(last().target).toBe('/v1/networks');
      expect(last().headers['x-service-key']).toBeUndefined();
      expect(last().headers['x-service-signature']).toBeUndefined();
    });
  });
});
