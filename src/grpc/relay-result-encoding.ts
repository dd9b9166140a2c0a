import { RelayResult, type RelayResults } from './generated/chainpay/v1/relay';

/**
 * RelayResults on the wire, as the generated encoder writes it (relay-result-encoding.test.ts
 * compares the bytes), into one buffer of its exact size. An OK result (the hot path: an id and the
 * response bytes) is written straight into it; the generated encoder grows a writer from a small
 * chunk and copies the result twice, which for a ~5 KB invoice was one of the largest costs of a
 * relayed GET (measured). Anything else (a refusal with details and trailers) is encoded by the
 * generated encoder and copied in.
 */
export function encodeRelayResults(batch: RelayResults): Buffer {
  const parts: (RelayResult | Uint8Array)[] = batch.results.map((r) => (isPlainOk(r) ? r : RelayResult.encode(r).finish()));
  const sizes = parts.map((p) => (p instanceof Uint8Array ? p.length : okSize(p)));
  let size = 0;
  for (const n of sizes) size += 1 + varintSize(n) + n;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    out[at++] = 0x0a; // RelayResults field 1 (results), length-delimited
    at = writeVarint(out, at, sizes[i]!);
    if (part instanceof Uint8Array) {
      out.set(part, at);
      at += part.length;
    } else {
      at = writeOk(out, at, part);
    }
  }
  return out;
}

function isPlainOk(r: RelayResult): boolean {
  return r.code === 0 && r.details === '' && r.trailers.length === 0;
}

/** Bytes of an OK RelayResult: its id (field 1) and response (field 3), each left out when empty. */
function okSize(r: RelayResult): number {
  const id = r.id >>> 0;
  const length = r.response.length;
  return (id !== 0 ? 1 + varintSize(id) : 0) + (length !== 0 ? 1 + varintSize(length) + length : 0);
}

function writeOk(out: Buffer, start: number, r: RelayResult): number {
  let at = start;
  const id = r.id >>> 0;
  if (id !== 0) {
    out[at++] = 0x08; // field 1, varint
    at = writeVarint(out, at, id);
  }
  const length = r.response.length;
  if (length !== 0) {
    out[at++] = 0x1a; // field 3, length-delimited
    at = writeVarint(out, at, length);
    out.set(r.response, at);
    at += length;
  }
  return at;
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
