import pino from 'pino';
import { createGateway } from '../../gateway/server';
import { FakeDaemon, invoiceFixture, StatusError } from './fake-daemon';
import { send, signed, startHarness } from './http-client';
import { status } from '@grpc/grpc-js';

/**
 * The gateway -> daemon hop goes over RelayService (gateway/relay-client.ts, src/grpc/relay.ts):
 * many calls on one stream, each answered by its own id, failing as a unary call would.
 */
const uuidOf = (i: number) => `0b9f5a52-5d3c-4c43-9a43-${String(i).padStart(12, '0')}`;

describe('relay stream between gateway and daemon', () => {
  it('carries concurrent calls, each answered with its own result, in whatever order they finish', async () => {
    const h = await startHarness();
    try {
      // Later requests finish first: the answers must still find their own request.
      h.daemon.on('GetInvoice', async (req: { uuid: string }) => {
        const n = Number(req.uuid.slice(-12));
        await new Promise((r) => setTimeout(r, 60 - (n % 60)));
        if (n % 7 === 0) throw new StatusError(status.NOT_FOUND, `invoice ${req.uuid} not found`, { 'chainpay-error-code': 'invoice_not_found' });
        return invoiceFixture({ uuid: req.uuid, amount: String(n) });
      });
      const answers = await Promise.all(Array.from({ length: 120 }, (_, i) => send(h.port, { path: `/v1/invoices/${uuidOf(i)}`, headers: signed() })));
      answers.forEach((res, i) => {
        if (i % 7 === 0) {
          expect([res.status, res.json()]).toEqual([404, { error: { code: 'invoice_not_found', message: `invoice ${uuidOf(i)} not found` } }]);
        } else {
          expect([res.status, res.json().uuid, res.json().amount]).toEqual([200, uuidOf(i), String(i)]);
        }
      });
      expect(h.daemon.calls).toHaveLength(120);
      expect(h.daemon.calls.every((c) => c.relayed)).toBe(true);
    } finally {
      await h.stop();
    }
  });

  it('a daemon without RelayService is called directly, the first calls included', async () => {
    const h = await startHarness({}, { relay: false });
    try {
      h.daemon.on('GetInvoice', (req: { uuid: string }) => invoiceFixture({ uuid: req.uuid }));
      const first = await Promise.all([1, 2, 3].map((i) => send(h.port, { path: `/v1/invoices/${uuidOf(i)}`, headers: signed() })));
      expect(first.map((r) => [r.status, r.json().uuid])).toEqual([1, 2, 3].map((i) => [200, uuidOf(i)]));
      const later = await send(h.port, { path: `/v1/invoices/${uuidOf(4)}`, headers: signed() });
      expect([later.status, later.json().uuid]).toEqual([200, uuidOf(4)]);
      expect(h.daemon.calls.map((c) => [c.request.uuid, c.relayed])).toEqual([1, 2, 3, 4].map((i) => [uuidOf(i), false]));
    } finally {
      await h.stop();
    }
  });

  it('a call in flight when the daemon goes away answers 503; once the daemon is back, calls work again', async () => {
    const first = await new FakeDaemon().start();
    const gateway = createGateway({ grpcAddress: first.address, logger: pino({ level: 'silent' }) });
    const port = await gateway.listen(0, '127.0.0.1');
    let second: FakeDaemon | null = null;
    try {
      first.on('GetInvoice', () => new Promise(() => undefined)); // never answers
      const inFlight = send(port, { path: `/v1/invoices/${uuidOf(1)}`, headers: signed() });
      while (first.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
      first.stop();
      const res = await inFlight;
      expect([res.status, res.json()]).toEqual([503, { error: { code: 'service_unavailable', message: 'service temporarily unavailable' } }]);

      second = await new FakeDaemon().start(Number(first.address.split(':')[1]));
      second.on('GetInvoice', (req: { uuid: string }) => invoiceFixture({ uuid: req.uuid }));
      let again = await send(port, { path: `/v1/invoices/${uuidOf(2)}`, headers: signed() });
      // grpc-js may need one failed attempt to notice the new server (it backs off reconnecting).
      for (let i = 0; i < 50 && again.status === 503; i++) {
        await new Promise((r) => setTimeout(r, 100));
        again = await send(port, { path: `/v1/invoices/${uuidOf(2)}`, headers: signed() });
      }
      expect([again.status, again.json().uuid]).toEqual([200, uuidOf(2)]);
      expect(second.calls.map((c) => c.relayed)).toEqual([true]);
    } finally {
      await gateway.close();
      second?.stop();
    }
  });

  it('at daemon shutdown a call in flight still gets its answer; calls after it are 503 until the daemon is back', async () => {
    const h = await startHarness();
    try {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      h.daemon.on('GetInvoice', async (req: { uuid: string }) => {
        if (req.uuid === uuidOf(1)) await gate;
        return invoiceFixture({ uuid: req.uuid });
      });
      const inFlight = send(h.port, { path: `/v1/invoices/${uuidOf(1)}`, headers: signed() });
      while (h.daemon.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
      h.daemon.drainRelay();
      const refused = await send(h.port, { path: `/v1/invoices/${uuidOf(2)}`, headers: signed() });
      expect([refused.status, refused.json().error.code]).toEqual([503, 'service_unavailable']);
      release();
      const res = await inFlight;
      expect([res.status, res.json().uuid]).toEqual([200, uuidOf(1)]);
      expect(h.daemon.calls.map((c) => c.request.uuid)).toEqual([uuidOf(1)]);
    } finally {
      await h.stop();
    }
  });

  it('a call the daemon does not answer in time is 504 timeout, and the stream keeps serving others', async () => {
    const h = await startHarness({ grpcDeadlineMs: 300 });
    try {
      h.daemon.on('GetInvoice', (req: { uuid: string }) => (req.uuid === uuidOf(1) ? new Promise(() => undefined) : invoiceFixture({ uuid: req.uuid })));
      // The first call also opens the channel: answered first, so the 300 ms deadline times only the calls below.
      expect((await send(h.port, { path: `/v1/invoices/${uuidOf(4)}`, headers: signed() })).status).toBe(200);
      const [slow, fast] = await Promise.all([send(h.port, { path: `/v1/invoices/${uuidOf(1)}`, headers: signed() }), send(h.port, { path: `/v1/invoices/${uuidOf(2)}`, headers: signed() })]);
      expect([slow.status, slow.json()]).toEqual([504, { error: { code: 'timeout', message: 'the service did not answer in time' } }]);
      expect([fast.status, fast.json().uuid]).toEqual([200, uuidOf(2)]);
      const after = await send(h.port, { path: `/v1/invoices/${uuidOf(3)}`, headers: signed() });
      expect([after.status, after.json().uuid]).toEqual([200, uuidOf(3)]);
    } finally {
      await h.stop();
    }
  });

  it('signed headers and the exact body bytes reach the daemon through the relay', async () => {
    const h = await startHarness();
    try {
      h.daemon.on('CreateInvoice', () => ({ invoice: invoiceFixture(), created: true }));
      const body = Buffer.from('{"amount":"10.5","title":"caf\u00e9 \u2615","metadata":{"k":[1,2]}}', 'utf8');
      const res = await send(h.port, { method: 'POST', path: '/v1/invoices', headers: signed(body, { 'X-Request-Id': 'req-relay-1' }), body });
      expect(res.status).toBe(201);
      const [call] = h.daemon.calls;
      expect(call!.relayed).toBe(true);
      expect(FakeDaemon.signedBody(call!.metadata).equals(body)).toBe(true);
      expect(call!.metadata.get('x-service-signature')).toEqual([signed(body)['X-Service-Signature']]);
      expect(call!.metadata.get('x-request-id')).toEqual(['req-relay-1']);
    } finally {
      await h.stop();
    }
  });
});
