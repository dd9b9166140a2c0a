import * as grpc from '@grpc/grpc-js';
import type { CreateInvoiceResponse, Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import type { Balance } from '../../src/grpc/generated/chainpay/v1/merchants';
import { createMerchant, rpc, type MerchantCredentials, type Stack, startStack } from '../support/stack';

const SERVICE_TOKEN = 'svc_test_token_0123456789abcdef';

function token(value: string, merchantId?: string): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${value}`);
  if (merchantId) md.set('x-merchant-id', merchantId);
  return md;
}

async function refusal(call: Promise<unknown>): Promise<{ code: grpc.status; error: unknown }> {
  const err = (await call.then(
    () => null,
    (e: grpc.ServiceError) => e,
  )) as grpc.ServiceError | null;
  if (!err) throw new Error('the call was expected to be refused');
  return { code: err.code, error: err.metadata.get('chainpay-error-code')[0] };
}

/** SERVICE_TOKEN: an internal platform acts for one merchant (x-merchant-id) and nothing more. */
describe('the service token (SERVICE_TOKEN + x-merchant-id)', () => {
  let stack: Stack;
  let a: MerchantCredentials;
  let b: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack({ env: { SERVICE_TOKEN } });
    a = await createMerchant(stack, { name: 'Shop A' });
    b = await createMerchant(stack, { name: 'Shop B' });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('calls the merchant services for the merchant named in x-merchant-id', async () => {
    const created = await rpc<CreateInvoiceResponse>((cb) => stack.clients.invoices.createInvoice({ amount: '12.5', network: 'TON', order_id: 'svc-1' }, token(SERVICE_TOKEN, a.merchantId), cb));
    expect(created.created).toBe(true);
    expect(created.invoice).toMatchObject({ merchant_id: a.merchantId, amount: '12.5', status: 'pending', network: 'TON' });
    const uuid = created.invoice!.uuid;
    const got = await rpc<Invoice>((cb) => stack.clients.invoices.getInvoice({ uuid }, token(SERVICE_TOKEN, a.merchantId), cb));
    expect(got).toMatchObject({ uuid, merchant_id: a.merchantId, order_id: 'svc-1' });
    const bal = await rpc<Balance>((cb) => stack.clients.merchants.getBalance({ merchant_id: b.merchantId }, token(SERVICE_TOKEN, a.merchantId), cb));
    expect(bal).toMatchObject({ merchant_id: a.merchantId, available: '0' }); // x-merchant-id wins over the message

    // Another merchant's invoice does not exist for it (no cross-merchant reads).
    expect(await refusal(rpc((cb) => stack.clients.invoices.getInvoice({ uuid }, token(SERVICE_TOKEN, b.merchantId), cb)))).toEqual({ code: grpc.status.NOT_FOUND, error: 'invoice_not_found' });
  });

  it('is refused without x-merchant-id, and a wrong token is refused', async () => {
    expect(await refusal(rpc((cb) => stack.clients.invoices.createInvoice({ amount: '1', network: 'TON' }, token(SERVICE_TOKEN), cb)))).toEqual({
      code: grpc.status.UNAUTHENTICATED,
      error: 'missing_merchant_id',
    });
    expect(await refusal(rpc((cb) => stack.clients.invoices.listInvoices({ limit: 1 } as never, token(SERVICE_TOKEN), cb)))).toEqual({
      code: grpc.status.UNAUTHENTICATED,
      error: 'missing_merchant_id',
    });
    expect(await refusal(rpc((cb) => stack.clients.invoices.createInvoice({ amount: '1', network: 'TON' }, token(`${SERVICE_TOKEN}x`, a.merchantId), cb)))).toEqual({
      code: grpc.status.UNAUTHENTICATED,
      error: 'missing_credentials',
    });
    const [{ n }] = await stack.daemon.orm.em.fork().getConnection().execute<{ n: string }[]>('select count(*) as n from invoices');
    expect(Number(n)).toBe(1); // only the accepted call created anything
  });

  it('is refused on the operator plane (OperatorService, merchant administration)', async () => {
    for (const md of [token(SERVICE_TOKEN), token(SERVICE_TOKEN, a.merchantId)]) {
      expect(await refusal(rpc((cb) => stack.clients.operator.listWatchers({}, md, cb)))).toEqual({ code: grpc.status.UNAUTHENTICATED, error: 'invalid_operator_token' });
      expect(await refusal(rpc((cb) => stack.clients.operator.listAudit({ limit: 1 }, md, cb)))).toEqual({ code: grpc.status.UNAUTHENTICATED, error: 'invalid_operator_token' });
      expect(await refusal(rpc((cb) => stack.clients.merchants.createMerchant({ name: 'Sneaky' }, md, cb)))).toEqual({ code: grpc.status.UNAUTHENTICATED, error: 'invalid_operator_token' });
    }
    // The operator token still works beside it.
    expect((await rpc<{ watchers: unknown[] }>((cb) => stack.clients.operator.listWatchers({}, stack.operator, cb))).watchers).toHaveLength(6);
  });

  it('names the same merchant whatever the case of x-merchant-id (a uuid): its invoices and its balance', async () => {
    const upper = token(SERVICE_TOKEN, a.merchantId.toUpperCase());
    const created = await rpc<CreateInvoiceResponse>((cb) => stack.clients.invoices.createInvoice({ amount: '3', network: 'TON', order_id: 'svc-case' }, upper, cb));
    expect(created.invoice).toMatchObject({ merchant_id: a.merchantId, order_id: 'svc-case' });
    const uuid = created.invoice!.uuid;
    // Its own invoice, read in either case; the repeat of its order_id answers with the original.
    for (const md of [upper, token(SERVICE_TOKEN, a.merchantId)]) {
      expect(await rpc<Invoice>((cb) => stack.clients.invoices.getInvoice({ uuid }, md, cb))).toMatchObject({ uuid, merchant_id: a.merchantId });
      const again = await rpc<CreateInvoiceResponse>((cb) => stack.clients.invoices.createInvoice({ amount: '3', network: 'TON', order_id: 'svc-case' }, md, cb));
      expect(again).toMatchObject({ created: false, invoice: { uuid } });
    }
    expect(await rpc<Balance>((cb) => stack.clients.merchants.getBalance({ merchant_id: '' }, upper, cb))).toMatchObject({ merchant_id: a.merchantId, available: '0' });
    const [{ n }] = await stack.daemon.orm.em.fork().getConnection().execute<{ n: string }[]>(`select count(*) as n from invoices where order_id = 'svc-case' and merchant_id = ?`, [a.merchantId]);
    expect(Number(n)).toBe(1);
  });
});
