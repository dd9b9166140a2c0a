import { Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import { encodeInvoice, encodeNetwork, encodeWithdrawal, EncodingError, parseMetadata } from '../../gateway/rest-encoding';
import { invoiceFixture, networkFixture, withdrawalFixture } from './fake-daemon';

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

  it('metadata must be a JSON object', () => {
    expect(parseMetadata('{"a":1}')).toEqual({ a: 1 });
    expect(parseMetadata('')).toEqual({});
    expect(() => parseMetadata('[1]')).toThrow(EncodingError);
    expect(() => parseMetadata('{')).toThrow(EncodingError);
    expect(() => parseMetadata('null')).toThrow(EncodingError);
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
