import { Invoice } from '../src/grpc/generated/chainpay/v1/invoices';
import { InvoiceBodies } from './invoice-bodies';
import { encodeInvoice } from './rest-encoding';

const invoice = (uuid: string, status: string, extra: Partial<Invoice> = {}): Buffer =>
  Buffer.from(Invoice.encode(Invoice.fromPartial({ uuid, status, amount: '10', pay_amount: '10.1', qr_svg: '<svg "x"/>', metadata_json: '{"a":1}', ...extra })).finish());

const restOf = (bytes: Buffer): unknown => JSON.parse(encodeInvoice(Invoice.decode(bytes)).bytes.toString('utf8'));

describe('InvoiceBodies', () => {
  it('the body is the REST encoding of exactly the bytes given, reused only while the bytes are equal', () => {
    const bodies = new InvoiceBodies();
    const pending = invoice('u1', 'pending');
    const first = bodies.body('u1', pending);
    expect(JSON.parse(first.bytes.toString())).toEqual(restOf(pending));
    // Equal bytes in another buffer (a new frame): the same body, not encoded again.
    expect(bodies.body('u1', Buffer.from(pending))).toBe(first);
    // The invoice changed: a new body, never the kept one.
    const confirming = invoice('u1', 'confirming', { received_amount: '10.1', tx_hash: '0xabc' });
    const second = bodies.body('u1', confirming);
    expect(second).not.toBe(first);
    expect(JSON.parse(second.bytes.toString())).toEqual(restOf(confirming));
    // A change of one byte anywhere is a change (same length: status of the same size).
    const paid = invoice('u1', 'overpaid!!', { received_amount: '10.1', tx_hash: '0xabc' });
    const third = bodies.body('u1', paid);
    expect(JSON.parse(third.bytes.toString())).toMatchObject({ status: 'overpaid!!' });
  });

  it('keeps a copy of the bytes: a view whose frame is reused later does not alter what is compared', () => {
    const bodies = new InvoiceBodies();
    const frame = Buffer.concat([Buffer.from([1, 2, 3]), invoice('u2', 'pending')]);
    const view = frame.subarray(3);
    const body = bodies.body('u2', view);
    const original = Buffer.from(view);
    frame.fill(0);
    expect(bodies.body('u2', original)).toBe(body);
  });

  it('keeps at most `max` invoices, the least recently read dropped first', () => {
    const bodies = new InvoiceBodies(2);
    const a = bodies.body('a', invoice('a', 'pending'));
    bodies.body('b', invoice('b', 'pending'));
    expect(bodies.body('a', invoice('a', 'pending'))).toBe(a); // a read again: b is now the oldest
    bodies.body('c', invoice('c', 'pending'));
    expect(bodies.size).toBe(2);
    expect(bodies.body('a', invoice('a', 'pending'))).toBe(a);
    expect(bodies.size).toBe(2);
  });
});
