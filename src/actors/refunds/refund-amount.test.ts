import { ConflictError, ValidationError } from '../../domain/errors';
import { refundAmount, type RefundableInvoice } from './refund-amount';

const inv = (over: Partial<RefundableInvoice>): RefundableInvoice => ({ status: 'paid', received: '0', payAmount: '10.5', paidLate: false, refunded: '0', ...over });
const code = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof ValidationError || e instanceof ConflictError) return e.code;
    throw e;
  }
  return 'none';
};

describe('refundAmount: the default by status and the bound by what was received', () => {
  it('overpaid: the excess, less what earlier refunds took', () => {
    expect(refundAmount(inv({ status: 'overpaid', received: '13.5' }), null)).toBe('3');
    expect(refundAmount(inv({ status: 'overpaid', received: '13.5', refunded: '1' }), null)).toBe('2');
  });
  it.each(['underpaid', 'expired', 'canceled'])('%s with a payment: everything received, less earlier refunds', (status) => {
    expect(refundAmount(inv({ status, received: '4' }), null)).toBe('4');
    expect(refundAmount(inv({ status, received: '4', refunded: '1.5' }), null)).toBe('2.5');
  });
  it('paid late: everything received; paid on time: an explicit amount is required', () => {
    expect(refundAmount(inv({ status: 'paid', received: '10.5', paidLate: true }), null)).toBe('10.5');
    expect(code(() => refundAmount(inv({ status: 'paid', received: '10.5' }), null))).toBe('amount_required');
    expect(refundAmount(inv({ status: 'paid', received: '10.5' }), '10.5')).toBe('10.5');
  });
  it('never above what was received less live refunds, not by one unit', () => {
    expect(code(() => refundAmount(inv({ received: '10.5', refunded: '5' }), '5.500001'))).toBe('refund_exceeds_received');
    expect(refundAmount(inv({ received: '10.5', refunded: '5' }), '5.5')).toBe('5.5');
    expect(code(() => refundAmount(inv({ received: '10.5', refunded: '10.5' }), '0.000001'))).toBe('nothing_to_refund');
    expect(code(() => refundAmount(inv({ status: 'expired', received: '0' }), null))).toBe('nothing_to_refund');
    expect(code(() => refundAmount(inv({ status: 'overpaid', received: '13.5', refunded: '3' }), null))).toBe('nothing_to_refund');
  });
  it.each(['pending', 'confirming', 'partially_paid'])('%s: not refundable (409)', (status) => {
    expect(code(() => refundAmount(inv({ status, received: '4' }), '1'))).toBe('invoice_not_refundable');
  });
});
