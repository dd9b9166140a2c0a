import { randomBytes } from 'node:crypto';
import { RelayCalls, RelayServiceService, type RelayCall, type RelayMetadata } from '../src/grpc/generated/chainpay/v1/relay';
import { serializeRelayCalls } from './relay-call-encoding';

const generatedBatch = RelayServiceService.relayBatched.requestSerialize;
/** One call as the batch the relay client writes, by the generated serializer. */
const generated = (c: RelayCall): Buffer => generatedBatch({ calls: [c], cancelled: [] });
const serializeRelayCall = (c: RelayCall): Buffer => serializeRelayCalls({ calls: [c], cancelled: [] });

function call(id: number, requestBytes: number, metadata: RelayMetadata[], timeoutMs = 15_000): RelayCall {
  return { id, method: '/chainpay.v1.InvoiceService/GetInvoice', request: randomBytes(requestBytes), metadata, timeout_ms: timeoutMs };
}

const signed: RelayMetadata[] = [
  { key: 'x-request-id', value: Buffer.from('3f1c2b9e-8d7a-4c55-9b1e-2a6f0e4d7c11') },
  { key: 'x-service-key', value: Buffer.from('ck_0123456789abcdef0123456789abcdef') },
  { key: 'x-service-signature', value: Buffer.from('ab'.repeat(32)) },
  { key: 'x-signed-body-bin', value: Buffer.alloc(0) },
];

describe('serializeRelayCalls', () => {
  it('writes the same bytes as the generated serializer, call after call on the kept writer', () => {
    const cases: RelayCall[] = [
      { id: 0, method: '', request: Buffer.alloc(0), metadata: [], timeout_ms: 0 },
      call(1, 0, [], 0),
      call(127, 40, signed),
      call(128, 300, signed),
      // Larger than any call before it (the kept writer grows), then small ones again (it does not shrink).
      call(0xffffffff, 70_000, [...signed, { key: 'x-signed-body-bin', value: randomBytes(16_384) }]),
      call(2, 12, [{ key: 'x-request-id', value: Buffer.from('r') }]),
      call(3, 40, signed),
    ];
    for (const c of cases) {
      const ours = serializeRelayCall(c);
      expect({ id: c.id, equal: ours.equals(generated(c)) }).toEqual({ id: c.id, equal: true });
      const [back] = RelayCalls.decode(ours).calls;
      if (!back) throw new Error('no call decoded');
      expect({ id: back.id, method: back.method, request: Buffer.from(back.request).equals(Buffer.from(c.request)), metadata: back.metadata.length, timeout: back.timeout_ms }).toEqual({
        id: c.id,
        method: c.method,
        request: true,
        metadata: c.metadata.length,
        timeout: c.timeout_ms,
      });
    }
  });

  it('writes a batch of calls in order, as the generated serializer does', () => {
    const batch = [call(1, 40, signed), call(2, 0, []), call(300, 2_000, signed)];
    const ours = serializeRelayCalls({ calls: batch, cancelled: [] });
    expect(ours.equals(generatedBatch({ calls: batch, cancelled: [] }))).toBe(true);
    expect(RelayCalls.decode(ours).calls.map((c) => c.id)).toEqual([1, 2, 300]);
  });

  it('writes the ids of cancelled calls after the calls, as the generated serializer does', () => {
    const batch = { calls: [call(7, 40, signed)], cancelled: [7, 3, 0xffffffff] };
    const ours = serializeRelayCalls(batch);
    expect(ours.equals(generatedBatch(batch))).toBe(true);
    const back = RelayCalls.decode(ours);
    expect([back.calls.map((c) => c.id), back.cancelled]).toEqual([[7], [7, 3, 0xffffffff]]);
  });

  it('hands out bytes no later call overwrites', () => {
    const first = call(10, 40, signed);
    const kept = serializeRelayCall(first);
    const copy = Buffer.from(kept);
    serializeRelayCall(call(11, 500, signed));
    expect(kept.equals(copy)).toBe(true);
    expect(kept.equals(generated(first))).toBe(true);
  });

  it('starts clean after an encode that threw half-way (inside a metadata entry)', () => {
    const broken = { ...call(20, 40, []), metadata: [{ key: 'x-request-id', value: undefined as unknown as Buffer }] };
    expect(() => serializeRelayCall(broken)).toThrow();
    const next = call(21, 40, signed);
    expect(serializeRelayCall(next).equals(generated(next))).toBe(true);
  });
});
