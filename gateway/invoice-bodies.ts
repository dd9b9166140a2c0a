import { Invoice } from '../src/grpc/generated/chainpay/v1/invoices';
import { encodeInvoice } from './rest-encoding';
import type { JsonBytes } from './respond';

/**
 * The REST body of an invoice is a pure function of the daemon's response bytes, and the daemon
 * sends the very same bytes for an invoice until it changes (it encodes an open invoice's message
 * once per commit). So the body made for those bytes is kept per invoice and reused while the
 * bytes are equal: a poll of an unchanged invoice costs a comparison instead of decoding the
 * ~5 KB message, building the REST object and JSON-encoding its QR code again (about a fifth of
 * the gateway's CPU per GET, and most of what it allocated, measured). Equal bytes are checked
 * in full, so a changed invoice can never be answered with an old body. At most `max` invoices,
 * the least recently read dropped first.
 */
export class InvoiceBodies {
  readonly #kept = new Map<string, { readonly bytes: Buffer; readonly body: JsonBytes }>();

  constructor(private readonly max = 2_000) {}

  body(uuid: string, bytes: Buffer): JsonBytes {
    const kept = this.#kept.get(uuid);
    if (kept !== undefined) {
      this.#kept.delete(uuid);
      if (kept.bytes.equals(bytes)) {
        this.#kept.set(uuid, kept);
        return kept.body;
      }
    }
    const body = encodeInvoice(Invoice.decode(bytes));
    // A copy: `bytes` may be a view of a larger frame.
    this.#kept.set(uuid, { bytes: Buffer.from(bytes), body });
    if (this.#kept.size > this.max) this.#kept.delete(this.#kept.keys().next().value as string);
    return body;
  }

  get size(): number {
    return this.#kept.size;
  }
}
