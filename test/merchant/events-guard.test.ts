import { startStack, createMerchant, signed, type Stack } from '../support/stack';
import { assertMatchesOpenApi } from '../support/openapi';
import { makeCert, Receiver } from '../webhooks/support';

/**
 * POST /v1/webhooks/test goes out through the same address guard as real deliveries. Here the
 * guard is on (as in production): a URL whose name rebinds to a loopback address after it was
 * submitted is refused, reported as delivered:false with the guard's reason, not as a 5xx.
 */
describe('test ping and the address guard (flag not set)', () => {
  let stack: Stack;
  let receiver: Receiver;
  let rebound = false;
  const resolver = async (host: string) => (rebound && host === 'receiver.test' ? [{ address: '127.0.0.1', family: 4 as const }] : []);

  beforeAll(async () => {
    const cert = makeCert();
    receiver = await Receiver.start(cert);
    // The receiver's CA is trusted: only the guard can stop the ping.
    stack = await startStack({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: '0' }, daemon: { webhooks: { ca: cert.cert, resolver } } });
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.down();
  });

  it('a name that rebinds to 127.0.0.1: 200 delivered false, the refusal in error, nothing connected', async () => {
    const url = receiver.url('/guarded').replace('127.0.0.1', 'receiver.test');
    const m = await createMerchant(stack, { webhook_url: url });
    rebound = true;
    const res = await signed(stack, m, 'POST', '/v1/webhooks/test', {});
    assertMatchesOpenApi('POST', '/v1/webhooks/test', res.status, res.body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ delivered: false, url, status_code: null, error: 'address 127.0.0.1 refused: loopback', event: { type: 'ping', data: { merchant_id: m.merchantId } } });
    expect(receiver.connections).toBe(0);
    expect(receiver.requests).toHaveLength(0);
  });
});
