import pg from 'pg';
import type { InvoiceUpdate } from '../../src/grpc/generated/chainpay/v1/invoices';
import { createMerchant, startStack, type MerchantCredentials, type Stack } from '../support/stack';
import { createInvoice, getInvoice, mine, pay, watchInvoice } from './helpers';
import { paymentQrCached, renderPaymentQr } from '../../src/views/payment-qr';

jest.setTimeout(60_000);

/**
 * GET of an open invoice is served from the rows kept since its last commit (OpenInvoiceReads).
 * Polling must still see every commit: once the invoice's WatchInvoice stream (emitted after the
 * commit) reports a state, GET answers that state, and so does the database.
 */
describe('GET /v1/invoices/{uuid} while the invoice changes', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  let sql: pg.Client;
  beforeAll(async () => {
    stack = await startStack();
    m = await createMerchant(stack);
    sql = new pg.Client({ connectionString: stack.databaseUrl });
    await sql.connect();
  });
  afterAll(async () => {
    await sql.end();
    await stack.stop();
  });

  it("a new invoice's QR code is cached by its first read, not by its creation (the same SVG both times)", async () => {
    const inv = await createInvoice(stack, m, { amount: '7', network: 'POLYGON' });
    const { rows } = await sql.query<{ payment_uri: string }>('select payment_uri from invoices where uuid = $1', [inv.uuid]);
    const link = rows[0]!.payment_uri;
    expect(link).toMatch(/^ethereum:/);
    expect(inv.qr_svg).toBe(await renderPaymentQr(link));
    expect(paymentQrCached(link)).toBe(false);
    expect((await getInvoice(stack, m, inv.uuid)).qr_svg).toBe(inv.qr_svg);
    expect(paymentQrCached(link)).toBe(true);
  });

  it('after each commit the next GET shows it: confirming, every confirmation, then paid', async () => {
    const inv = await createInvoice(stack, m, { amount: '12', network: 'POLYGON' });
    // Read it a few times first: these reads are kept.
    for (let i = 0; i < 3; i++) expect((await getInvoice(stack, m, inv.uuid)).status).toBe('pending');

    const stream = watchInvoice(stack, m.merchantId, inv.uuid);
    const updates = stream.updates;
    const streamed = async (check: (u: InvoiceUpdate) => boolean): Promise<InvoiceUpdate> => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const hit = updates.find(check);
        if (hit) return hit;
        if (Date.now() > deadline) throw new Error(`no such update; got ${updates.map((u) => `${u.invoice?.status}/${u.invoice?.confirmations}`).join(', ')}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const stored = async (): Promise<{ status: string; confirmations: number }> =>
      (await sql.query<{ status: string; confirmations: number }>('select status, confirmations from invoices where uuid = $1', [inv.uuid])).rows[0]!;

    await pay(stack, 'POLYGON', inv.address, inv.pay_amount);
    await streamed((u) => u.invoice?.status === 'confirming');
    expect(await stored()).toMatchObject({ status: 'confirming' });
    const seen = await getInvoice(stack, m, inv.uuid);
    expect(seen.status).toBe('confirming');
    expect(seen.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);

    const required: number = inv.required_confirmations;
    expect(required).toBeGreaterThan(1);
    for (let k = seen.confirmations + 1; k < required; k++) {
      await mine(stack, 'POLYGON', 1);
      await streamed((u) => (u.invoice?.confirmations ?? 0) >= k);
      const db = await stored();
      const got = await getInvoice(stack, m, inv.uuid);
      expect(got.confirmations).toBe(db.confirmations);
      expect(got.confirmations).toBeGreaterThanOrEqual(k);
    }
    await mine(stack, 'POLYGON', 1);
    await streamed((u) => u.invoice?.status === 'paid');
    expect(await stored()).toMatchObject({ status: 'paid' });
    const paid = await getInvoice(stack, m, inv.uuid);
    expect(paid.status).toBe('paid');
    expect(paid.paid_at).not.toBeNull();
    stream.cancel();
  });
});
