import { CreateInvoiceResponse, Payment } from '../../src/grpc/generated/chainpay/v1/invoices';
import { Balance } from '../../src/grpc/generated/chainpay/v1/merchants';
import { ListNetworksResponse } from '../../src/grpc/generated/chainpay/v1/networks';
import { CreateWithdrawalResponse } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { invoiceFixture, networkFixture, withdrawalFixture } from './fake-daemon';
import { send, signed, startHarness, type Harness } from './http-client';

const INVOICE_KEYS = [
  'uuid',
  'status',
  'order_id',
  'title',
  'amount',
  'currency',
  'platform_fee',
  'network_fee',
  'pay_amount',
  'merchant_net',
  'fee_payer',
  'network',
  'address',
  'memo',
  'checkout_url',
  'qr_svg',
  'received_amount',
  'confirmations',
  'required_confirmations',
  'tx_hash',
  'metadata',
  'expires_at',
  'paid_at',
  'created_at',
  'paid_late',
  'payments',
  'return_url',
  'cancel_url',
  'livemode',
];
const WITHDRAWAL_KEYS = [
  'uuid',
  'reference',
  'status',
  'network',
  'address',
  'amount',
  'network_fee',
  'net_payout',
  'tx_hash',
  'rejection_reason',
  'failure_reason',
  'created_at',
  'completed_at',
  'livemode',
  'memo',
];

let h: Harness;
let created = true;
beforeAll(async () => {
  h = await startHarness();
  h.daemon
    .on('ListNetworks', () =>
      ListNetworksResponse.fromPartial({
        networks: [networkFixture(), networkFixture({ code: 'TON', name: 'TON', buyer_network_fee: '0', deposit_mode: 'master_memo', required_confirmations: 1 })],
        livemode: true,
      }),
    )
    .on('CreateInvoice', () => CreateInvoiceResponse.fromPartial({ invoice: invoiceFixture({ order_id: 'o-1' }), created }))
    .on('CreateWithdrawal', () => CreateWithdrawalResponse.fromPartial({ withdrawal: withdrawalFixture({ reference: 'r-1' }), created }))
    .on('GetWithdrawal', () => withdrawalFixture({ status: 'completed', tx_hash: '0xabc', completed_at: '2026-01-01T00:05:00.000Z' }))
    .on('GetBalance', () => Balance.fromPartial({ merchant_id: 'merchant-1', available: '1234.56789', held: '50', currency: 'USDT' }))
    .on('GetInvoice', () =>
      invoiceFixture({
        status: 'confirming',
        network: 'TRC20',
        address: 'TXYZ',
        tx_hash: 'tx1',
        confirmations: 3,
        required_confirmations: 19,
        received_amount: '101',
        metadata_json: '{"cart":{"id":7,"items":["a","b"]},"note":"ünï"}',
        payments: [Payment.fromPartial({ tx_hash: 'tx1', event_index: 2, from: 'TFROM', amount: '101', confirmations: 3, status: 'confirming', block_height: '99', seen_at: 'x' })],
        return_url: 'https://shop.example/back',
      }),
    );
});
afterAll(() => h.stop());
beforeEach(() => {
  h.daemon.calls.splice(0);
  created = true;
});

describe('GET /v1/networks (unsigned)', () => {
  it("lists active networks with exactly the 8 public fields, decimals as strings, and the daemon's livemode", async () => {
    const res = await send(h.port, { path: '/v1/networks' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.text).toBe(
      '{"networks":[' +
        '{"code":"TRC20","name":"Tron (TRC20)","buyer_network_fee":"1","withdrawal_fee":"1.5","min_invoice":"1","min_withdrawal":"5","required_confirmations":19,"deposit_mode":"address_pool"},' +
        '{"code":"TON","name":"TON","buyer_network_fee":"0","withdrawal_fee":"1.5","min_invoice":"1","min_withdrawal":"5","required_confirmations":1,"deposit_mode":"master_memo"}],"livemode":true}',
    );
    const call = h.daemon.calls[0]!;
    expect(call.method).toBe('ListNetworks');
    expect(call.request).toEqual({ include_inactive: false });
    expect(call.metadata.get('x-service-key')).toEqual([]);
    expect(call.metadata.get('x-signed-body-bin')).toEqual([]);
  });
});

describe('invoices', () => {
  it('POST /v1/invoices -> 201 with the full Invoice, nulls for unset optionals, no internal fields', async () => {
    const body = '{"amount":"100","order_id":"o-1"}';
    const res = await send(h.port, { method: 'POST', path: '/v1/invoices', headers: signed(body), body });
    expect(res.status).toBe(201);
    const invoice = res.json();
    expect(Object.keys(invoice)).toEqual(INVOICE_KEYS);
    expect(invoice).toMatchObject({
      order_id: 'o-1',
      title: null,
      network: null,
      address: null,
      memo: null,
      tx_hash: null,
      paid_at: null,
      metadata: {},
      payments: [],
      paid_late: false,
      return_url: null,
      cancel_url: null,
      amount: '100',
      confirmations: 0,
      required_confirmations: 0,
    });
    expect(res.text).not.toMatch(/merchant_id|webhook_url|payment_uri|metadata_json/);
  });

  it('POST /v1/invoices with a repeated order_id (created=false) -> 200', async () => {
    created = false;
    const body = '{"amount":"100","order_id":"o-1"}';
    const res = await send(h.port, { method: 'POST', path: '/v1/invoices', headers: signed(body), body });
    expect(res.status).toBe(200);
    expect(res.json().order_id).toBe('o-1');
  });

  it('GET /v1/invoices/{uuid} -> 200 with metadata as an object and payments', async () => {
    const res = await send(h.port, { path: '/v1/invoices/0b9f5a52-5d3c-4c43-9a43-3f0c7f4b8a11', headers: signed('') });
    expect(res.status).toBe(200);
    const invoice = res.json();
    expect(Object.keys(invoice)).toEqual(INVOICE_KEYS);
    expect(invoice.metadata).toEqual({ cart: { id: 7, items: ['a', 'b'] }, note: 'ünï' });
    expect(invoice.payments).toEqual([{ tx_hash: 'tx1', event_index: 2, from: 'TFROM', amount: '101', confirmations: 3, status: 'confirming' }]);
    expect(invoice).toMatchObject({ status: 'confirming', network: 'TRC20', tx_hash: 'tx1', confirmations: 3, return_url: 'https://shop.example/back', cancel_url: null });
  });
});

describe('withdrawals and balance', () => {
  it('POST /v1/withdrawals -> 201, and 200 for a repeated reference', async () => {
    const body = '{"network":"TRC20","address":"TXYZabc","amount":"50","reference":"r-1"}';
    const res = await send(h.port, { method: 'POST', path: '/v1/withdrawals', headers: signed(body), body });
    expect(res.status).toBe(201);
    expect(res.text).toBe(
      '{"uuid":"5e0c1f5e-2a8b-4a57-b7a4-2a4b8b9c7d10","reference":"r-1","status":"processing","network":"TRC20","address":"TXYZabc",' +
        '"amount":"50","network_fee":"1","net_payout":"49","tx_hash":null,"rejection_reason":null,"failure_reason":null,"created_at":"2026-01-01T00:00:00.000Z","completed_at":null,"livemode":false,"memo":null}',
    );
    expect(h.daemon.calls[0]!.request).toEqual({ network: '', address: '', amount: '' });
    created = false;
    expect((await send(h.port, { method: 'POST', path: '/v1/withdrawals', headers: signed(body), body })).status).toBe(200);
  });

  it('GET /v1/withdrawals/{uuid} -> 200 Withdrawal', async () => {
    const res = await send(h.port, { path: '/v1/withdrawals/5e0c1f5e-2a8b-4a57-b7a4-2a4b8b9c7d10', headers: signed('') });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json())).toEqual(WITHDRAWAL_KEYS);
    expect(res.json()).toMatchObject({ status: 'completed', tx_hash: '0xabc', reference: null, completed_at: '2026-01-01T00:05:00.000Z' });
    expect(h.daemon.calls[0]!.request).toEqual({ uuid: '5e0c1f5e-2a8b-4a57-b7a4-2a4b8b9c7d10' });
  });

  it('GET /v1/balance -> {available, held, currency}', async () => {
    const res = await send(h.port, { path: '/v1/balance', headers: signed('') });
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"available":"1234.56789","held":"50","currency":"USDT"}');
  });
});
