import { createHmac, randomBytes } from 'node:crypto';
import { ChainpayClient, isInvoiceEvent, verifyServiceSignature, verifyStandardWebhook, verifyWebhook, WebhookVerificationError, type WebhookHeaders } from '../src';

const API_SECRET = 'sk_test_secret';
const WEBHOOK_SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const NOW_S = 1767225600;
const now = (): number => NOW_S * 1000;

/** A delivery signed as the daemon signs it (docs/webhooks.md), computed here with node:crypto alone. */
function delivery(body: string, opts: { id?: string; timestamp?: number; webhookSecret?: string; apiSecret?: string } = {}): { body: string; headers: Record<string, string> } {
  const id = opts.id ?? 'evt_5f0c6b0e4d3a2b1c0d9e8f7a';
  const timestamp = opts.timestamp ?? NOW_S;
  const key = Buffer.from((opts.webhookSecret ?? WEBHOOK_SECRET).replace(/^whsec_/, ''), 'base64');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-service-signature': createHmac('sha256', opts.apiSecret ?? API_SECRET)
        .update(body)
        .digest('hex'),
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`,
    },
  };
}

const EVENT = { id: 'evt_5f0c6b0e4d3a2b1c0d9e8f7a', type: 'invoice.paid', created_at: '2026-11-21T10:15:30.123Z', data: { uuid: 'u-1', status: 'paid', amount: '12.5', metadata: { order: 'A-1' } } };
const BODY = JSON.stringify(EVENT);

describe('webhook verification', () => {
  it('the Standard Webhooks reference vector verifies', () => {
    const headers = { 'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'webhook-timestamp': '1614265330', 'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=' };
    expect(verifyStandardWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', headers, '{"test": 2432232314}', { now: () => 1614265330_000 })).toBe(true);
    expect(verifyStandardWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', headers, '{"test": 2432232315}', { now: () => 1614265330_000 })).toBe(false);
  });

  it('a valid delivery verifies both ways, as a string, bytes, Node headers or fetch Headers', () => {
    const d = delivery(BODY);
    expect(verifyStandardWebhook(WEBHOOK_SECRET, d.headers, d.body, { now })).toBe(true);
    expect(verifyServiceSignature(API_SECRET, d.headers, d.body)).toBe(true);
    expect(verifyStandardWebhook(WEBHOOK_SECRET, new Headers(d.headers), Buffer.from(d.body), { now })).toBe(true);
    const upper: WebhookHeaders = Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyServiceSignature(API_SECRET, upper, new Uint8Array(Buffer.from(d.body)))).toBe(true);
    const event = verifyWebhook({ body: d.body, headers: d.headers, webhookSecret: WEBHOOK_SECRET, apiSecret: API_SECRET, now });
    expect(event).toEqual(EVENT);
    expect(isInvoiceEvent(event)).toBe(true);
  });

  it('a tampered body does not verify', () => {
    const d = delivery(BODY);
    const tampered = BODY.replace('"12.5"', '"125"');
    expect(verifyStandardWebhook(WEBHOOK_SECRET, d.headers, tampered, { now })).toBe(false);
    expect(verifyServiceSignature(API_SECRET, d.headers, tampered)).toBe(false);
    expect(verifyServiceSignature(API_SECRET, d.headers, `${BODY} `)).toBe(false);
    expect(() => verifyWebhook({ body: tampered, headers: d.headers, webhookSecret: WEBHOOK_SECRET, now })).toThrow(expect.objectContaining({ reason: 'invalid_signature' }));
    // Another webhook-id than the one signed.
    expect(verifyStandardWebhook(WEBHOOK_SECRET, { ...d.headers, 'webhook-id': 'evt_other' }, d.body, { now })).toBe(false);
  });

  it('a wrong secret does not verify', () => {
    const d = delivery(BODY);
    expect(verifyStandardWebhook(`whsec_${randomBytes(24).toString('base64')}`, d.headers, d.body, { now })).toBe(false);
    expect(verifyServiceSignature('sk_other', d.headers, d.body)).toBe(false);
    expect(() => verifyWebhook({ body: d.body, headers: d.headers, apiSecret: 'sk_other' })).toThrow(WebhookVerificationError);
  });

  it('a stale or future timestamp is refused, even with a valid signature; the tolerance is adjustable', () => {
    for (const ts of [NOW_S - 301, NOW_S + 301, 0]) {
      const d = delivery(BODY, { timestamp: ts });
      expect(verifyStandardWebhook(WEBHOOK_SECRET, d.headers, d.body, { now })).toBe(false);
      expect(() => verifyWebhook({ body: d.body, headers: d.headers, webhookSecret: WEBHOOK_SECRET, now })).toThrow(expect.objectContaining({ reason: 'stale_timestamp' }));
    }
    for (const ts of [NOW_S - 300, NOW_S + 300]) expect(verifyStandardWebhook(WEBHOOK_SECRET, delivery(BODY, { timestamp: ts }).headers, BODY, { now })).toBe(true);
    const old = delivery(BODY, { timestamp: NOW_S - 600 });
    expect(verifyStandardWebhook(WEBHOOK_SECRET, old.headers, BODY, { now, toleranceSeconds: 900 })).toBe(true);
    expect(verifyStandardWebhook(WEBHOOK_SECRET, delivery(BODY, { timestamp: NOW_S - 10 }).headers, BODY, { now, toleranceSeconds: 5 })).toBe(false);
  });

  it('any listed v1 signature may match (a rotation); other versions are ignored', () => {
    const d = delivery(BODY);
    const other = delivery(BODY, { webhookSecret: `whsec_${randomBytes(24).toString('base64')}` }).headers['webhook-signature'];
    const good = d.headers['webhook-signature']!;
    expect(verifyStandardWebhook(WEBHOOK_SECRET, { ...d.headers, 'webhook-signature': `${other} ${good}` }, BODY, { now })).toBe(true);
    expect(verifyStandardWebhook(WEBHOOK_SECRET, { ...d.headers, 'webhook-signature': `v2,${good.slice(3)}` }, BODY, { now })).toBe(false);
  });

  it('missing headers, a missing secret, or a body that is no event are refused with a reason', () => {
    const d = delivery(BODY);
    const { 'webhook-signature': _, ...noSig } = d.headers;
    expect(() => verifyWebhook({ body: BODY, headers: noSig, webhookSecret: WEBHOOK_SECRET, now })).toThrow(expect.objectContaining({ reason: 'missing_header' }));
    const { 'x-service-signature': __, ...noService } = d.headers;
    expect(() => verifyWebhook({ body: BODY, headers: noService, apiSecret: API_SECRET })).toThrow(expect.objectContaining({ reason: 'missing_header' }));
    expect(() => verifyWebhook({ body: BODY, headers: d.headers })).toThrow(expect.objectContaining({ reason: 'missing_secret' }));
    const notEvent = delivery('[1,2]', {});
    expect(() => verifyWebhook({ body: notEvent.body, headers: { ...notEvent.headers, 'webhook-id': 'evt_5f0c6b0e4d3a2b1c0d9e8f7a' }, apiSecret: API_SECRET })).toThrow(
      expect.objectContaining({ reason: 'invalid_body' }),
    );
  });

  it('client.webhooks.verify uses the client secrets: both checks when the webhook secret is given', () => {
    const client = new ChainpayClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'pk_1', apiSecret: API_SECRET, webhookSecret: WEBHOOK_SECRET });
    const d = delivery(BODY);
    expect(client.webhooks.verify(d.body, d.headers, { now }).id).toBe(EVENT.id);
    const badStandard = delivery(BODY, { webhookSecret: `whsec_${randomBytes(24).toString('base64')}` });
    expect(() => client.webhooks.verify(badStandard.body, badStandard.headers, { now })).toThrow(WebhookVerificationError);
    const badService = delivery(BODY, { apiSecret: 'sk_other' });
    expect(() => client.webhooks.verify(badService.body, badService.headers, { now })).toThrow(WebhookVerificationError);
  });
});
