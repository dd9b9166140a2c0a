import { RelayResult } from './generated/chainpay/v1/relay';

/**
 * RelayResult on the wire, as the generated encoder writes it (relay-result-encoding.test.ts
 * compares the bytes). An OK result (the hot path: an id and the response bytes) is written into
 * one buffer of its exact size; the generated encoder grows a writer from a small chunk and copies
 * the result twice, which for a ~5 KB invoice was one of the largest costs of a relayed GET
 * (measured). Anything else (a refusal with details and trailers) uses the generated encoder.
 */
export function encodeRelayResult(result: RelayResult): Buffer {
  if (result.code !== 0 || result.details !== '' || result.trailers.length !== 0) return Buffer.from(RelayResult.encode(result).finish());
  const id = result.id >>> 0;
  const length = result.response.length;
  const size = (id !== 0 ? 1 + varintSize(id) : 0) + (length !== 0 ? 1 + varintSize(length) + length : 0);
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  if (id !== 0) {
    out[at++] = 0x08; // field 1, varint
    at = writeVarint(out, at, id);
  }
  if (length !== 0) {
    out[at++] = 0x1a; // field 3, length-delimited
    at = writeVarint(out, at, length);
    out.set(result.response, at);
  }
  return out;
}

/** Bytes of an unsigned 32-bit varint. */
function varintSize(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;
}

function writeVarint(out: Buffer, at: number, value: number): number {
  let v = value >>> 0;
  while (v >= 0x80) {
    out[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  out[at++] = v;
  return at;
}
