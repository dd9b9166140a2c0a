import { randomBytes } from 'node:crypto';
import { RelayResult } from './generated/chainpay/v1/relay';
import { encodeRelayResult } from './relay-result-encoding';

const generated = (r: RelayResult): Buffer => Buffer.from(RelayResult.encode(r).finish());

describe('encodeRelayResult', () => {
  it('writes the same bytes as the generated encoder', () => {
    const ids = [0, 1, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152, 268_435_455, 268_435_456, 0xffffffff];
    const lengths = [0, 1, 127, 128, 5_000, 16_384, 2_097_152];
    const cases: RelayResult[] = [];
    for (const id of ids) for (const n of lengths) cases.push({ id, code: 0, response: randomBytes(n), details: '', trailers: [] });
    // Refusals go through the generated encoder, with everything they carry.
    cases.push({ id: 7, code: 5, response: Buffer.alloc(0), details: 'invoice not found', trailers: [{ key: 'chainpay-error-code', value: Buffer.from('invoice_not_found') }] });
    cases.push({ id: 8, code: 0, response: Buffer.from('x'), details: 'odd but possible', trailers: [] });
    cases.push({ id: 9, code: 0, response: Buffer.alloc(0), details: '', trailers: [{ key: 'k', value: Buffer.alloc(0) }] });
    for (const r of cases) {
      const ours = encodeRelayResult(r);
      expect({ id: r.id, n: r.response.length, equal: ours.equals(generated(r)) }).toEqual({ id: r.id, n: r.response.length, equal: true });
      const back = RelayResult.decode(ours);
      expect(back.id).toBe(r.id);
      expect(Buffer.from(back.response).equals(Buffer.from(r.response))).toBe(true);
    }
  });
});
