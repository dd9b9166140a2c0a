import net from 'node:net';
import http from 'node:http';
import pino from 'pino';
import { ListNetworksResponse } from '../../src/grpc/generated/chainpay/v1/networks';
import { createGateway } from '../../gateway/server';
import { networkFixture } from './fake-daemon';
import { send, startHarness } from './http-client';

/** A port nothing listens on (bound, then released). */
async function deadAddress(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `127.0.0.1:${port}`;
}

describe('/healthz and /readyz', () => {
  it('ready while the daemon reports SERVING; 503 when NOT_SERVING', async () => {
    const h = await startHarness();
    try {
      expect((await send(h.port, { path: '/healthz' })).text).toBe('{"status":"ok"}');
      const ready = await send(h.port, { path: '/readyz' });
      expect([ready.status, ready.text]).toEqual([200, '{"status":"ready"}']);
      h.daemon.health.setStatus('', 'NOT_SERVING');
      const notReady = await send(h.port, { path: '/readyz' });
      expect([notReady.status, notReady.text]).toEqual([503, '{"status":"not_ready","daemon":"NOT_SERVING"}']);
      expect(h.daemon.calls).toHaveLength(0);
    } finally {
      await h.stop();
    }
  });

  it('daemon down: /healthz 200, /readyz 503, /v1 calls 503 service_unavailable', async () => {
    const gateway = createGateway({ grpcAddress: await deadAddress(), logger: pino({ level: 'silent' }) });
    const port = await gateway.listen(0, '127.0.0.1');
    try {
      expect((await send(port, { path: '/healthz' })).status).toBe(200);
      const ready = await send(port, { path: '/readyz' });
      expect([ready.status, ready.text]).toEqual([503, '{"status":"not_ready","daemon":"unreachable"}']);
      const list = await send(port, { path: '/v1/networks' });
      expect(list.status).toBe(503);
      expect(list.text).toBe('{"error":{"code":"service_unavailable","message":"service temporarily unavailable"}}');
    } finally {
      await gateway.close();
    }
  });
});

describe('graceful close', () => {
  it('finishes in-flight requests, refuses new connections, then resolves', async () => {
    const h = await startHarness();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    h.daemon.on('ListNetworks', async () => {
      await gate;
      return ListNetworksResponse.fromPartial({ networks: [networkFixture()] });
    });
    const inFlight = send(h.port, { path: '/v1/networks' });
    while (h.daemon.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
    let closed = false;
    const closing = h.gateway.close().then(() => (closed = true));
    await expect(send(h.port, { path: '/healthz' })).rejects.toThrow(/ECONNREFUSED/);
    expect(closed).toBe(false);
    release();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.json().networks[0].code).toBe('TRC20');
    expect(res.headers.connection).toBe('close');
    await closing;
    expect(closed).toBe(true);
    await h.stop(); // idempotent
  });

  it('closes idle keep-alive connections at once', async () => {
    const h = await startHarness();
    const agent = new http.Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) => http.get({ host: '127.0.0.1', port: h.port, path: '/healthz', agent }, (res) => res.resume().on('end', resolve)).on('error', reject));
    const started = Date.now();
    await h.stop();
    expect(Date.now() - started).toBeLessThan(2_000);
    agent.destroy();
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After once a client exceeds its burst; health routes are exempt', async () => {
    const h = await startHarness({ rateLimit: { ratePerSecond: 0.5, burst: 2 } });
    h.daemon.on('ListNetworks', () => ListNetworksResponse.fromPartial({ networks: [] }));
    try {
      expect((await send(h.port, { path: '/v1/networks' })).status).toBe(200);
      expect((await send(h.port, { path: '/v1/networks' })).status).toBe(200);
      const limited = await send(h.port, { path: '/v1/networks' });
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBe('2');
      expect(limited.text).toBe('{"error":{"code":"rate_limited","message":"too many requests"}}');
      expect(h.daemon.calls).toHaveLength(2);
      expect((await send(h.port, { path: '/healthz' })).status).toBe(200);
    } finally {
      await h.stop();
    }
  });
});
