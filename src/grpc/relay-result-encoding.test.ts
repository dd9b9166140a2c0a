import { randomBytes } from 'node:crypto';
import { type RelayResult, RelayResults } from './generated/chainpay/v1/relay';
import { encodeRelayResults } from './relay-result-encoding';

const generated = (b: RelayResults): Buffer => Buffer.from(RelayResults.encode(b).finish());

function ok(id: number, n: number): RelayResult {
  return { id, code: 0, response: randomBytes(n), details: '', trailers: [] };
}

describe('encodeRelayResults', () => {
  it('writes the same bytes as the generated encoder, one result at a time', () => {
    const ids = [0, 1, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152, 268_435_455, 268_435_456, 0xffffffff];
    const lengths = [0, 1, 127, 128, 5_000, 16_384, 2_097_152];
    const cases: RelayResult[] = [];
    for (const id of ids) for (const n of lengths) cases.push(ok(id, n));
    // Refusals go through the generated encoder, with everything they carry.
    cases.push({ id: 7, code: 5, response: Buffer.alloc(0), details: 'invoice not found', trailers: [{ key: 'chainpay-error-code', value: Buffer.from('invoice_not_found') }] });
    cases.push({ id: 8, code: 0, response: Buffer.from('x'), details: 'odd but possible', trailers: [] });
    cases.push({ id: 9, code: 0, response: Buffer.alloc(0), details: '', trailers: [{ key: 'k', value: Buffer.alloc(0) }] });
    for (const r of cases) {
      const ours = encodeRelayResults({ results: [r] });
      expect({ id: r.id, n: r.response.length, equal: ours.equals(generated({ results: [r] })) }).toEqual({ id: r.id, n: r.response.length, equal: true });
      const [back] = RelayResults.decode(ours).results;
      expect(back?.id).toBe(r.id);
      expect(Buffer.from(back!.response).equals(Buffer.from(r.response))).toBe(true);
    }
  });

  it('writes a batch of OK results and refusals in order, as the generated encoder does', () => {
    const batch: RelayResults = {
      results: [
        ok(1, 4_700),
        { id: 2, code: 16, response: Buffer.alloc(0), details: 'invalid signature', trailers: [{ key: 'chainpay-error-code', value: Buffer.from('invalid_signature') }] },
        ok(3, 0),
        ok(200, 130),
        ok(0, 5),
      ],
    };
    const ours = encodeRelayResults(batch);
    expect(ours.equals(generated(batch))).toBe(true);
    const back = RelayResults.decode(ours).results;
    expect(back.map((r) => [r.id, r.code, Buffer.from(r.response).toString('hex')])).toEqual(batch.results.map((r) => [r.id, r.code, Buffer.from(r.response).toString('hex')]));
  });

  it('an empty batch is an empty message', () => {
    expect(encodeRelayResults({ results: [] }).length).toBe(0);
  });
});
