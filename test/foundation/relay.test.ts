import { createHmac } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { type Invoice, InvoiceServiceService } from '../../src/grpc/generated/chainpay/v1/invoices';
import { RelayServiceClient, type RelayCall, type RelayResult, type RelayResults } from '../../src/grpc/generated/chainpay/v1/relay';
import { createMerchant, rpc, signed, startStack, type MerchantCredentials, type Stack } from '../support/stack';

/**
 * RelayService on the real daemon: a relayed call runs the same implementation as a direct unary
 * call, so both give the same answer, byte for byte, and the same refusal (status, details,
 * chainpay-error-code); a method that is not a unary method of the daemon is refused without
 * touching the stream; shutdown ends the stream (test/gateway/relay.test.ts shows a call in flight
 * still gets its answer).
 */
function signedMetadata(creds: MerchantCredentials, body = ''): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set('x-service-key', creds.apiKey);
  md.set('x-service-signature', createHmac('sha256', creds.apiSecret).update(body).digest('hex'));
  md.add('x-signed-body-bin', Buffer.from(body));
  return md;
}

const entries = (md: grpc.Metadata) => Object.entries(md.toJSON()).flatMap(([key, values]) => values.map((v) => ({ key, value: Buffer.isBuffer(v) ? v : Buffer.from(v, 'latin1') })));

/** A call as the tests write it: no id (openRelay numbers them), no deadline unless given. */
type Call = Omit<RelayCall, 'id' | 'timeout_ms'> & { timeout_ms?: number };

/**
 * One relay stream; `call` writes a RelayCalls message of one call and resolves with its result,
 * `callAll` writes one message of several; `messages` counts the RelayResults messages received.
 */
function openRelay(stack: Stack) {
  const client = new RelayServiceClient(stack.grpcAddress, grpc.credentials.createInsecure());
  const stream = client.relayBatched();
  const waiting = new Map<number, (r: RelayResult) => void>();
  const ended = new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));
  const received = { messages: 0 };
  stream.on('error', () => undefined);
  stream.on('data', (batch: RelayResults) => {
    received.messages++;
    for (const r of batch.results) waiting.get(r.id)?.(r);
  });
  let next = 1;
  const callAll = (calls: Call[]): Promise<RelayResult[]> => {
    const ids = calls.map(() => next++);
    const results = ids.map((id) => new Promise<RelayResult>((resolve) => waiting.set(id, resolve)));
    stream.write({ calls: calls.map((c, i) => ({ id: ids[i]!, timeout_ms: 0, ...c })), cancelled: [] });
    // A stream that ends first fails the calls at once (a refused message ends it with RESOURCE_EXHAUSTED).
    const endedFirst = ended.then((s): never => {
      throw new Error(`relay stream ended: ${s.code} ${s.details}`);
    });
    return Promise.race([Promise.all(results), endedFirst]);
  };
  return {
    ended,
    received,
    call: async (c: Call): Promise<RelayResult> => (await callAll([c]))[0]!,
    callAll,
    close: () => {
      stream.cancel();
      client.close();
    },
  };
}

describe('RelayService on the daemon', () => {
  let stack: Stack;
  let creds: MerchantCredentials;
  let uuid: string;

  beforeAll(async () => {
    stack = await startStack();
    creds = await createMerchant(stack);
    const created = await signed(stack, creds, 'POST', '/v1/invoices', { amount: '12.5', network: 'POLYGON', order_id: 'relay-1' });
    expect(created.status).toBe(201);
    uuid = created.body.uuid;
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('a relayed call answers exactly what the direct call answers', async () => {
    const relay = openRelay(stack);
    try {
      const m = InvoiceServiceService.getInvoice;
      const direct = await rpc<Invoice>((cb) => stack.clients.invoices.getInvoice({ uuid }, signedMetadata(creds), cb));
      const relayed = await relay.call({ method: m.path, request: m.requestSerialize({ uuid }), metadata: entries(signedMetadata(creds)) });
      expect(relayed.code).toBe(grpc.status.OK);
      expect(Buffer.from(relayed.response).equals(m.responseSerialize(direct))).toBe(true);
      expect(m.responseDeserialize(Buffer.from(relayed.response)).uuid).toBe(uuid);
    } finally {
      relay.close();
    }
  });

  it('a refusal carries the same status, details and error code as a direct call', async () => {
    const relay = openRelay(stack);
    try {
      const m = InvoiceServiceService.getInvoice;
      const bad = signedMetadata({ ...creds, apiSecret: 'not-the-secret' });
      const direct = await rpc<Invoice>((cb) => stack.clients.invoices.getInvoice({ uuid }, bad, cb)).catch((e: grpc.ServiceError) => e);
      const relayed = await relay.call({ method: m.path, request: m.requestSerialize({ uuid }), metadata: entries(bad) });
      expect(direct).toMatchObject({ code: grpc.status.UNAUTHENTICATED });
      const trailer = (r: RelayResult, key: string) => r.trailers.filter((t) => t.key === key).map((t) => Buffer.from(t.value).toString());
      expect([relayed.code, relayed.details, trailer(relayed, 'chainpay-error-code')]).toEqual([
        (direct as grpc.ServiceError).code,
        (direct as grpc.ServiceError).details,
        (direct as grpc.ServiceError).metadata.get('chainpay-error-code'),
      ]);
      expect(trailer(relayed, 'chainpay-error-code')).toEqual(['invalid_signature']);
      // Unknown invoice: 404 through the relay too.
      const missing = await relay.call({ method: m.path, request: m.requestSerialize({ uuid: '00000000-0000-4000-8000-000000000000' }), metadata: entries(signedMetadata(creds)) });
      expect([missing.code, trailer(missing, 'chainpay-error-code')]).toEqual([grpc.status.NOT_FOUND, ['invoice_not_found']]);
    } finally {
      relay.close();
    }
  });

  /**
   * GetInvoice, signed metadata, and the count of result messages after one first read: it fills
   * the daemon's kept rows and secret cache, so the calls after it answer from memory, in one turn.
   */
  async function warmed(relay: ReturnType<typeof openRelay>) {
    const m = InvoiceServiceService.getInvoice;
    const md = entries(signedMetadata(creds));
    expect((await relay.call({ method: m.path, request: m.requestSerialize({ uuid }), metadata: md })).code).toBe(grpc.status.OK);
    return { m, md, before: relay.received.messages };
  }

  it('calls sent together are each answered under their own id, and results ready together come back in one message', async () => {
    const relay = openRelay(stack);
    try {
      const { m, md, before } = await warmed(relay);
      const missing = '00000000-0000-4000-8000-000000000000';
      const asked = Array.from({ length: 20 }, (_, i) => (i % 5 === 4 ? missing : uuid));
      const results = await relay.callAll(asked.map((u) => ({ method: m.path, request: m.requestSerialize({ uuid: u }), metadata: md })));
      expect(results.map((r) => (r.code === grpc.status.OK ? m.responseDeserialize(Buffer.from(r.response)).uuid : r.code))).toEqual(asked.map((u) => (u === uuid ? uuid : grpc.status.NOT_FOUND)));
      // One message per result would be 20; answered in the same turn, they share one (or a few).
      expect(relay.received.messages - before).toBeLessThanOrEqual(5);
    } finally {
      relay.close();
    }
  });

  it('a thousand results ready at once (~5 MB of invoices) come back in messages the client accepts (4 MiB each at most)', async () => {
    const relay = openRelay(stack);
    try {
      const { m, md, before } = await warmed(relay);
      const results = await relay.callAll(Array.from({ length: 1000 }, () => ({ method: m.path, request: m.requestSerialize({ uuid }), metadata: md })));
      expect(results.filter((r) => r.code !== grpc.status.OK)).toEqual([]);
      const bytes = results.reduce((n, r) => n + r.response.length, 0);
      expect(bytes).toBeGreaterThan(4 * 1024 * 1024);
      // At most 1 MiB of results per message (src/grpc/relay.ts RELAY_MESSAGE_MAX_BYTES).
      expect(relay.received.messages - before).toBeGreaterThanOrEqual(Math.ceil(bytes / (1024 * 1024)));
    } finally {
      relay.close();
    }
  });

  it('refuses methods it does not relay (unknown, streaming) and keeps serving the stream', async () => {
    const relay = openRelay(stack);
    try {
      const unknown = await relay.call({ method: '/chainpay.v1.InvoiceService/DropTables', request: Buffer.alloc(0), metadata: [] });
      const streaming = await relay.call({ method: InvoiceServiceService.watchInvoice.path, request: Buffer.alloc(0), metadata: entries(signedMetadata(creds)) });
      expect([unknown.code, streaming.code]).toEqual([grpc.status.UNIMPLEMENTED, grpc.status.UNIMPLEMENTED]);
      const m = InvoiceServiceService.getInvoice;
      const ok = await relay.call({ method: m.path, request: m.requestSerialize({ uuid }), metadata: entries(signedMetadata(creds)) });
      expect(ok.code).toBe(grpc.status.OK);
    } finally {
      relay.close();
    }
  });

  it('an open relay stream does not hold up shutdown: it ends with OK and the daemon stops well within the grace period', async () => {
    const own = await startStack({ env: { SHUTDOWN_GRACE_MS: '20000' } });
    const relay = openRelay(own);
    try {
      const merchant = await createMerchant(own);
      const m = InvoiceServiceService.getInvoice;
      const answered = await relay.call({ method: m.path, request: m.requestSerialize({ uuid: '00000000-0000-4000-8000-000000000000' }), metadata: entries(signedMetadata(merchant)) });
      expect(answered.code).toBe(grpc.status.NOT_FOUND);
      const t0 = Date.now();
      await own.stop();
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect((await relay.ended).code).toBe(grpc.status.OK);
    } finally {
      relay.close();
    }
  });
});
