import { Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import { encodeInvoice as encodeInvoiceBytes, encodeNetwork, encodeWithdrawal as encodeWithdrawalBytes, EncodingError } from '../../gateway/rest-encoding';
import type { Invoice as InvoiceMessage } from '../../src/grpc/generated/chainpay/v1/invoices';
import type { Withdrawal as WithdrawalMessage } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { invoiceFixture, networkFixture, withdrawalFixture } from './fake-daemon';

const encodeInvoice = (i: InvoiceMessage): any => JSON.parse(encodeInvoiceBytes(i).bytes.toString('utf8'));
const encodeWithdrawal = (w: WithdrawalMessage): any => JSON.parse(encodeWithdrawalBytes(w).bytes.toString('utf8'));
const metadataOf = (metadata_json: string): string => {
  const text = encodeInvoiceBytes(invoiceFixture({ metadata_json })).bytes.toString('utf8');
  return text.slice(text.indexOf('"metadata":') + '"metadata":'.length, text.indexOf(',"expires_at"'));
};

describe('REST encoders', () => {
  it('an invoice decoded from the wire with every optional unset: each is null, none omitted', () => {
    const wire = Invoice.decode(Invoice.encode(invoiceFixture()).finish());
    const json = JSON.parse(JSON.stringify(encodeInvoice(wire)));
    for (const key of ['order_id', 'title', 'network', 'address', 'memo', 'tx_hash', 'paid_at', 'return_url', 'cancel_url']) {
      expect(json).toHaveProperty(key, null);
    }
    expect(json.metadata).toEqual({});
    expect(json).not.toHaveProperty('merchant_id');
    expect(json).not.toHaveProperty('webhook_url');
  });

  it('livemode is copied as a boolean, false when unset on the wire (devnet)', () => {
    const devnet = JSON.parse(JSON.stringify(encodeInvoice(Invoice.decode(Invoice.encode(invoiceFixture()).finish()))));
    expect(devnet.livemode).toBe(false);
    expect(encodeInvoice(invoiceFixture({ livemode: true })).livemode).toBe(true);
    expect(encodeWithdrawal(withdrawalFixture({ livemode: true })).livemode).toBe(true);
    expect(encodeWithdrawal(withdrawalFixture()).livemode).toBe(false);
  });

  it('an optional explicitly set to "" stays "" (it is not unset)', () => {
    const wire = Invoice.decode(Invoice.encode(invoiceFixture({ memo: '' })).finish());
    expect(encodeInvoice(wire).memo).toBe('');
  });

  it('keeps amounts as the exact decimal strings', () => {
    const json = encodeInvoice(invoiceFixture({ amount: '0.00000001', pay_amount: '1.000000000000000001' }));
    expect(json.amount).toBe('0.00000001');
    expect(json.pay_amount).toBe('1.000000000000000001');
  });

  it('metadata must be a JSON object, and is sent as the very text stored (numbers never pass through a JS number)', () => {
    expect(metadataOf('{"a":1}')).toBe('{"a":1}');
    expect(metadataOf('')).toBe('{}');
    expect(metadataOf('{"big":12345678901234567890123,"huge":1e400,"f":1.50}')).toBe('{"big":12345678901234567890123,"huge":1e400,"f":1.50}');
    for (const bad of ['[1]', '{', 'null']) expect(() => encodeInvoiceBytes(invoiceFixture({ metadata_json: bad }))).toThrow(EncodingError);
  });

  it('network drops internal fields', () => {
    expect(Object.keys(encodeNetwork(networkFixture()))).toEqual(['code', 'name', 'buyer_network_fee', 'withdrawal_fee', 'min_invoice', 'min_withdrawal', 'required_confirmations', 'deposit_mode']);
  });

  it('withdrawal drops merchant_id and confirmations', () => {
    const json = encodeWithdrawal(withdrawalFixture({ rejection_reason: 'address flagged' }));
    expect(json).not.toHaveProperty('merchant_id');
    expect(json).not.toHaveProperty('confirmations');
    expect(json.rejection_reason).toBe('address flagged');
  });
});
