import http from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { InvoiceServiceService } from '../../src/grpc/generated/chainpay/v1/invoices';
import { RelayServiceClient, type RelayResult, type RelayResults } from '../../src/grpc/generated/chainpay/v1/relay';
import { invoiceFixture, type RecordedCall } from './fake-daemon';
import { send, signed, startHarness, type Harness } from './http-client';

/**
 * A relayed call behaves as a unary gRPC call in the two ways its handler can see (issue 32, item
 * 4): the gateway's deadline reaches the handler (getDeadline(), DEADLINE_EXCEEDED once it passes,
 * then `cancelled`), and an HTTP client that goes away cancels its call (`cancelled` and one
 * 'cancelled' event; its result is dropped). A real gRPC server (FakeDaemon serves the daemon's own
 * Relay) behind the real gateway.
 */
const uuidOf = (i: number) => `0b9f5a52-5d3c-4c43-9a43-${String(i).padStart(12, '0')}`;
const NEVER = (): Promise<never> => new Promise(() => undefined);

/**
 * Waits up to `ms` for the handler's call to have emitted 'cancelled', then reports how many times
 * it did and what `call.cancelled` says.
 */
async function cancelledWithin(recorded: RecordedCall, ms: number): Promise<{ events: number; cancelled: boolean }> {
  const until = Date.now() + ms;
  while (recorded.cancelledEvents() === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
  return { events: recorded.cancelledEvents(), cancelled: (recorded.call as unknown as { cancelled: boolean }).cancelled };
}

async function waitForCalls(h: Harness, n: number): Promise<void> {
  for (let i = 0; i < 500 && h.daemon.calls.length < n; i++) await new Promise((r) => setTimeout(r, 5));
  expect(h.daemon.calls.length).toBeGreaterThanOrEqual(n);
}

/** A signed GET whose client closes its socket once `gone` resolves; resolves when it has. */
function abandonedGet(port: number, path: string, gone: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, path, headers: signed(), agent: false });
    req.on('error', () => resolve()); // ECONNRESET / socket hang up: we closed it
    req.on('response', () => resolve());
    req.end();
    void gone.then(() => req.destroy());
  });
}

describe('relayed calls keep their deadline and their cancellation', () => {
  it("the gateway's deadline reaches the handler: getDeadline() is when the gateway gives up", async () => {
    const h = await startHarness({ grpcDeadlineMs: 4_000 });
    try {
      h.daemon.on('GetInvoice', (req: { uuid: string }) => invoiceFixture({ uuid: req.uuid }));
      const t0 = Date.now();
      const res = await send(h.port, { path: `/v1/invoices/${uuidOf(1)}`, headers: signed() });
      const t1 = Date.now();
      expect(res.status).toBe(200);
      const [recorded] = h.daemon.calls;
      expect(recorded!.relayed).toBe(true);
      const deadline = recorded!.call.getDeadline() as number;
      // Set between t0 and t1 as now + 4 s by the gateway; sent as the time left, rounded up.
      expect(deadline).toBeGreaterThanOrEqual(t0 + 4_000);
      expect(deadline).toBeLessThanOrEqual(t1 + 4_000 + 2);
      expect((recorded!.call as unknown as { cancelled: boolean }).cancelled).toBe(false);
    } finally {
      await h.stop();
    }
  });

  it('a call past its deadline is 504 timeout for the merchant, and its handler sees cancelled', async () => {
    const h = await startHarness({ grpcDeadlineMs: 300 });
    try {
      h.daemon.on('GetInvoice', (req: { uuid: string }) => (req.uuid === uuidOf(1) ? NEVER() : invoiceFixture({ uuid: req.uuid })));
      // Opens the channel and the stream first, so the 300 ms time only the call below.
      expect((await send(h.port, { path: `/v1/invoices/${uuidOf(2)}`, headers: signed() })).status).toBe(200);
      const t0 = Date.now();
      const res = await send(h.port, { path: `/v1/invoices/${uuidOf(1)}`, headers: signed() });
      expect([res.status, res.json()]).toEqual([504, { error: { code: 'timeout', message: 'the service did not answer in time' } }]);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
      const slow = h.daemon.calls[1]!;
      expect(slow.request.uuid).toBe(uuidOf(1));
      expect(await cancelledWithin(slow, 2_000)).toEqual({ events: 1, cancelled: true });
      // The stream serves on.
      expect((await send(h.port, { path: `/v1/invoices/${uuidOf(3)}`, headers: signed() })).status).toBe(200);
    } finally {
      await h.stop();
    }
  });

  it('the daemon itself answers a relayed call past its deadline DEADLINE_EXCEEDED; a call without one waits', async () => {
    const h = await startHarness();
    const client = new RelayServiceClient(h.daemon.address, grpc.credentials.createInsecure());
    try {
      h.daemon.on('GetInvoice', async (req: { uuid: string }) => {
        if (req.uuid === uuidOf(1)) return NEVER();
        await new Promise((r) => setTimeout(r, 250));
        return invoiceFixture({ uuid: req.uuid });
      });
      const stream = client.relayBatched();
      stream.on('error', () => undefined);
      const results = new Map<number, { result: RelayResult; at: number }>();
      stream.on('data', (batch: RelayResults) => {
        for (const result of batch.results) results.set(result.id, { result, at: Date.now() });
      });
      const m = InvoiceServiceService.getInvoice;
      const t0 = Date.now();
      stream.write({
        calls: [
          { id: 1, method: m.path, request: m.requestSerialize({ uuid: uuidOf(1) }), metadata: [], timeout_ms: 100 },
          { id: 2, method: m.path, request: m.requestSerialize({ uuid: uuidOf(2) }), metadata: [], timeout_ms: 0 },
        ],
        cancelled: [],
      });
      for (let i = 0; i < 200 && results.size < 2; i++) await new Promise((r) => setTimeout(r, 10));
      const expired = results.get(1)!;
      expect([expired.result.code, expired.result.details]).toEqual([grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded']);
      expect(expired.at - t0).toBeGreaterThanOrEqual(95);
      expect(await cancelledWithin(h.daemon.calls.find((c) => c.request.uuid === uuidOf(1))!, 1_000)).toEqual({ events: 1, cancelled: true });
      // No deadline: answered after its 250 ms, long past the other one's 100.
      const waited = results.get(2)!;
      expect(waited.result.code).toBe(grpc.status.OK);
      expect(h.daemon.calls.find((c) => c.request.uuid === uuidOf(2))!.call.getDeadline()).toBe(Infinity);
      stream.cancel();
    } finally {
      client.close();
      await h.stop();
    }
  });

  it('an HTTP client that goes away mid-call cancels it: the handler sees cancelled, and the stream serves on', async () => {
    const h = await startHarness();
    try {
      h.daemon.on('GetInvoice', (req: { uuid: string }) => (req.uuid === uuidOf(1) ? NEVER() : invoiceFixture({ uuid: req.uuid })));
      let leave!: () => void;
      const gone = abandonedGet(h.port, `/v1/invoices/${uuidOf(1)}`, new Promise<void>((resolve) => (leave = resolve)));
      await waitForCalls(h, 1);
      const abandoned = h.daemon.calls[0]!;
      expect(abandoned.relayed).toBe(true);
      // Still waited for: not cancelled.
      expect(await cancelledWithin(abandoned, 100)).toEqual({ events: 0, cancelled: false });
      leave();
      await gone;
      expect(await cancelledWithin(abandoned, 5_000)).toEqual({ events: 1, cancelled: true });
      const next = await send(h.port, { path: `/v1/invoices/${uuidOf(2)}`, headers: signed() });
      expect([next.status, next.json().uuid]).toEqual([200, uuidOf(2)]);
      expect(h.daemon.calls[1]!.relayed).toBe(true);
    } finally {
      await h.stop();
    }
  });

  it('a cancelled call gets no result, even when its handler answers after the cancel', async () => {
    const h = await startHarness();
    const client = new RelayServiceClient(h.daemon.address, grpc.credentials.createInsecure());
    try {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      h.daemon.on('GetInvoice', async (req: { uuid: string }) => {
        if (req.uuid === uuidOf(1)) await gate;
        return invoiceFixture({ uuid: req.uuid });
      });
      const stream = client.relayBatched();
      stream.on('error', () => undefined);
      const resultIds: number[] = [];
      stream.on('data', (batch: RelayResults) => resultIds.push(...batch.results.map((r) => r.id)));
      const m = InvoiceServiceService.getInvoice;
      const relayCall = (id: number) => ({ id, method: m.path, request: m.requestSerialize({ uuid: uuidOf(id) }), metadata: [], timeout_ms: 10_000 });
      stream.write({ calls: [relayCall(1)], cancelled: [] });
      await waitForCalls(h, 1);
      stream.write({ calls: [], cancelled: [1] });
      expect(await cancelledWithin(h.daemon.calls[0]!, 5_000)).toEqual({ events: 1, cancelled: true });
      release(); // the handler answers anyway
      await new Promise((r) => setTimeout(r, 50));
      // A call and its cancel in one message: the call runs and is cancelled at once.
      stream.write({ calls: [relayCall(2), relayCall(3)], cancelled: [3] });
      for (let i = 0; i < 200 && !resultIds.includes(2); i++) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 50));
      expect(resultIds).toEqual([2]);
      expect(await cancelledWithin(h.daemon.calls.find((c) => c.request.uuid === uuidOf(3))!, 1_000)).toEqual({ events: 1, cancelled: true });
      stream.cancel();
    } finally {
      client.close();
      await h.stop();
    }
  });

  it('without RelayService (direct unary calls) the deadline and the cancellation reach the handler too', async () => {
    // 30 s: the cancel below must come from the client going away, well before any deadline.
    const h = await startHarness({ grpcDeadlineMs: 30_000 }, { relay: false });
    try {
      h.daemon.on('GetInvoice', (req: { uuid: string }) => (req.uuid === uuidOf(1) ? NEVER() : invoiceFixture({ uuid: req.uuid })));
      const t0 = Date.now();
      expect((await send(h.port, { path: `/v1/invoices/${uuidOf(2)}`, headers: signed() })).status).toBe(200);
      const direct = h.daemon.calls[0]!;
      expect(direct.relayed).toBe(false);
      expect(direct.call.getDeadline()).toBeGreaterThanOrEqual(t0 + 29_900);
      let leave!: () => void;
      const gone = abandonedGet(h.port, `/v1/invoices/${uuidOf(1)}`, new Promise<void>((resolve) => (leave = resolve)));
      await waitForCalls(h, 2);
      expect(await cancelledWithin(h.daemon.calls[1]!, 100)).toEqual({ events: 0, cancelled: false });
      leave();
      await gone;
      expect(await cancelledWithin(h.daemon.calls[1]!, 5_000)).toEqual({ events: 1, cancelled: true });
    } finally {
      await h.stop();
    }
  });
});
