import { sendWebhook, type SendOptions } from '../../src/webhooks/send';
import { createMerchant, signed, startStack, type MerchantCredentials, type Stack } from '../support/stack';
import { makeCert, Receiver, type TestCert } from '../webhooks/support';
import { recordFigures } from './support/figures';

/**
 * The webhook address matrix. At delivery (the connect-time guard, the authority): every text
 * encoding of a loopback or private address is refused before a connection is made, so nothing
 * reaches a receiver listening on 127.0.0.1. At submission: a webhook URL that is a literal private,
 * loopback, link-local, CGNAT, ULA or mapped address is refused with 422 `invalid_webhook_url`,
 * through the real gateway, and nothing is written.
 */
const LOOPBACK_ENCODINGS = [
  '127.0.0.1',
  '127.1',
  '127.0.1',
  '0x7f.1',
  '0x7f000001',
  '2130706433',
  '017700000001',
  '0177.0.0.1',
  '[::1]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[0:0:0:0:0:ffff:7f00:1]',
  'localhost',
];
const PRIVATE_LITERALS = [
  '10.0.0.1',
  '172.16.0.1',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '127.0.0.1',
  '0.0.0.0',
  '[::1]',
  '[fc00::1]',
  '[fd12:3456::1]',
  '[fe80::1]',
  '[::ffff:10.0.0.1]',
  '[::ffff:169.254.169.254]',
  '[64:ff9b::a00:1]',
];

describe('webhook address matrix', () => {
  let cert: TestCert;
  let receiver: Receiver;
  beforeAll(async () => {
    cert = makeCert();
    receiver = await Receiver.start(cert);
    receiver.openapi = false; // sendWebhook's transport, with a payload of the test's making
  });
  afterAll(async () => {
    await receiver?.down();
  });

  it('at delivery: every loopback encoding is refused without connecting', async () => {
    const body = Buffer.from('{"id":"evt_matrix","type":"ping","created_at":"2026-01-01T00:00:00.000Z","data":{}}');
    const opts: SendOptions = { allowPrivate: false, timeoutMs: 5_000, ca: cert.cert };
    const before = receiver.connections;
    const delivered: string[] = [];
    for (const host of LOOPBACK_ENCODINGS) {
      const res = await sendWebhook(`https://${host}:${receiver.port}/matrix`, { 'content-type': 'application/json' }, body, opts);
      if (res.ok || res.error === null) delivered.push(host);
    }
    expect(delivered).toEqual([]);
    expect(receiver.connections).toBe(before);
    // The receiver is reachable when the guard is lifted (so the refusals above are the guard's).
    const lifted = await sendWebhook(receiver.url('/matrix'), { 'content-type': 'application/json' }, body, { ...opts, allowPrivate: true });
    expect(lifted.ok).toBe(true);
  });

  describe('at submission, through the gateway', () => {
    let stack: Stack;
    let merchant: MerchantCredentials;
    beforeAll(async () => {
      stack = await startStack({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: '0' } });
      merchant = await createMerchant(stack, { name: 'matrix shop' });
    });
    afterAll(async () => {
      await stack?.stop();
    });

    it('a literal private, loopback, link-local, CGNAT, ULA or mapped address is refused with 422 invalid_webhook_url', async () => {
      const accepted: string[] = [];
      for (const host of PRIVATE_LITERALS) {
        const res = await signed(stack, merchant, 'POST', '/v1/invoices', { amount: '20', network: 'TRC20', webhook_url: `https://${host}/hook` });
        if (res.status !== 422 || res.body?.error?.code !== 'invalid_webhook_url') accepted.push(`${host}: ${res.status} ${res.text.slice(0, 120)}`);
      }
      expect(accepted).toEqual([]);
      const written = await stack.daemon.orm.em.fork().execute<{ n: string }[]>('select count(*)::text as n from invoices');
      expect(written[0]!.n).toBe('0');
      // A public name is still accepted (the connect-time guard judges its addresses at delivery).
      const ok = await signed(stack, merchant, 'POST', '/v1/invoices', { amount: '20', network: 'TRC20', webhook_url: 'https://8.8.8.8/hook' });
      expect(ok.status).toBe(201);
      recordFigures('webhook-matrix', { deliveryEncodings: LOOPBACK_ENCODINGS.length, submissionLiterals: PRIVATE_LITERALS.length, violations: accepted.length });
    });
  });
});
