import { Decimal } from 'decimal.js';
import { computeInvoiceAmounts, computeWithdrawalAmounts, settlementCredit, type FeePayer } from './fees';
import { ValidationError } from './errors';

// Independent arithmetic for the identity checks: a local clone, not our money module.
const D = Decimal.clone({ precision: 100 });

type Row = [
  amount: string,
  decimals: number | null,
  payer: FeePayer,
  percent: string,
  networkFee: string | null,
  expected: { platformFee: string; networkFee: string; payAmount: string; merchantNet: string },
];

// Expected values worked out by hand (DESIGN.md "Money"), e.g. row 1: raw fee 0.1012345678,
// 10.12345678 + 0.1012345678 + 1 = 11.2246913478 -> ceil to 6 dp 11.224692; fee = 11.224692 - 10.12345678 - 1.
const TABLE: Row[] = [
  ['10.12345678', 6, 'buyer', '1', '1', { platformFee: '0.10123522', networkFee: '1', payAmount: '11.224692', merchantNet: '10.12345678' }],
  ['10.12345678', 18, 'buyer', '1', '1', { platformFee: '0.1012345678', networkFee: '1', payAmount: '11.2246913478', merchantNet: '10.12345678' }],
  ['10.12345678', 6, 'merchant', '1', '1', { platformFee: '0.1012347878', networkFee: '1', payAmount: '10.123457', merchantNet: '9.0222222122' }],
  ['10.12345678', 18, 'merchant', '1', '1', { platformFee: '0.1012345678', networkFee: '1', payAmount: '10.12345678', merchantNet: '9.0222222122' }],
  ['10.12345678', 6, 'buyer', '2.5', '0', { platformFee: '0.25308722', networkFee: '0', payAmount: '10.376544', merchantNet: '10.12345678' }],
  ['0.00000001', 6, 'buyer', '0', '0', { platformFee: '0.00000099', networkFee: '0', payAmount: '0.000001', merchantNet: '0.00000001' }],
  ['0.00000001', 6, 'merchant', '0', '0', { platformFee: '0.00000099', networkFee: '0', payAmount: '0.000001', merchantNet: '0.00000001' }],
  ['0.00000001', 6, 'merchant', '1', '1', { platformFee: '0.0000009901', networkFee: '1', payAmount: '0.000001', merchantNet: '0' }],
  ['0.00000001', 18, 'buyer', '2.5', '1', { platformFee: '0.00000000025', networkFee: '1', payAmount: '1.00000001025', merchantNet: '0.00000001' }],
  ['0.00000001', 18, 'merchant', '2.5', '0', { platformFee: '0.00000000025', networkFee: '0', payAmount: '0.00000001', merchantNet: '0.00000000975' }],
  ['99999.99999999', 6, 'buyer', '2.5', '1', { platformFee: '2500.00000001', networkFee: '1', payAmount: '102501', merchantNet: '99999.99999999' }],
  ['99999.99999999', 6, 'merchant', '2.5', '1', { platformFee: '2500.00000000975', networkFee: '1', payAmount: '100000', merchantNet: '97498.99999999025' }],
  ['99999.99999999', 18, 'buyer', '0', '0', { platformFee: '0', networkFee: '0', payAmount: '99999.99999999', merchantNet: '99999.99999999' }],
  ['1', 6, 'buyer', '1', '1', { platformFee: '0.01', networkFee: '1', payAmount: '2.01', merchantNet: '1' }],
  ['1', 18, 'merchant', '0', '0', { platformFee: '0', networkFee: '0', payAmount: '1', merchantNet: '1' }],
  ['5.5', 6, 'buyer', '2.5', '0', { platformFee: '0.1375', networkFee: '0', payAmount: '5.6375', merchantNet: '5.5' }],
  ['5.5', 6, 'merchant', '1', '0', { platformFee: '0.055', networkFee: '0', payAmount: '5.5', merchantNet: '5.445' }],
  ['5.5', 18, 'merchant', '2.5', '1', { platformFee: '0.1375', networkFee: '1', payAmount: '5.5', merchantNet: '4.3625' }],
  // no network chosen yet: 8 decimals, network_fee 0
  ['10.12345678', null, 'buyer', '1', null, { platformFee: '0.10123457', networkFee: '0', payAmount: '10.22469135', merchantNet: '10.12345678' }],
  ['10.12345678', null, 'merchant', '1', null, { platformFee: '0.1012345678', networkFee: '0', payAmount: '10.12345678', merchantNet: '10.0222222122' }],
];

describe('computeInvoiceAmounts rounding table', () => {
  it.each(TABLE)('%s on %s decimals, %s pays, %s%%, network fee %s', (amount, decimals, feePayer, percent, networkFee, expected) => {
    const got = computeInvoiceAmounts({ amount, feePayer, platformFeePercent: percent, buyerNetworkFee: networkFee, tokenDecimals: decimals });
    expect(got).toEqual(expected);

    const pay = new D(got.payAmount);
    const fee = new D(got.platformFee);
    const net = new D(got.networkFee);
    // pay_amount is payable: no more decimals than the token has, and never below the amount
    expect(pay.decimalPlaces()).toBeLessThanOrEqual(decimals ?? 8);
    expect(pay.greaterThanOrEqualTo(amount)).toBe(true);
    if (feePayer === 'buyer') {
      expect(new D(amount).plus(fee).plus(net).equals(pay)).toBe(true);
      expect(got.merchantNet).toBe(new D(amount).toFixed());
    } else {
      expect(new D(got.merchantNet).equals(D.max(0, pay.minus(fee).minus(net)))).toBe(true);
    }
  });

  it('accepts a Decimal amount and never prints exponents', () => {
    const got = computeInvoiceAmounts({ amount: new Decimal('1e-8'), feePayer: 'buyer', platformFeePercent: '2.5', buyerNetworkFee: '0', tokenDecimals: 18 });
    expect(got).toEqual({ platformFee: '0.00000000025', networkFee: '0', payAmount: '0.00000001025', merchantNet: '0.00000001' });
  });

  it('refuses negative inputs', () => {
    expect(() => computeInvoiceAmounts({ amount: '1', feePayer: 'buyer', platformFeePercent: '-1', buyerNetworkFee: '0', tokenDecimals: 6 })).toThrow(RangeError);
  });
});

describe('settlementCredit', () => {
  it('credits received minus fees, never below zero', () => {
    expect(settlementCredit({ received: '11.224692', platformFee: '0.10123522', networkFee: '1' })).toBe('10.12345678');
    expect(settlementCredit({ received: '20', platformFee: '0.5', networkFee: '1' })).toBe('18.5');
    expect(settlementCredit({ received: '0.5', platformFee: '0.5', networkFee: '1' })).toBe('0');
  });

  it('equals merchant_net for an exact payment, whoever pays the fees', () => {
    for (const [amount, decimals, feePayer, percent, networkFee] of TABLE) {
      const a = computeInvoiceAmounts({ amount, feePayer, platformFeePercent: percent, buyerNetworkFee: networkFee, tokenDecimals: decimals });
      expect(settlementCredit({ received: a.payAmount, platformFee: a.platformFee, networkFee: a.networkFee })).toBe(a.merchantNet);
    }
  });
});

describe('computeWithdrawalAmounts', () => {
  it('deducts the fee exactly', () => {
    expect(computeWithdrawalAmounts({ amount: '100', withdrawalFee: '1.5' })).toEqual({ networkFee: '1.5', netPayout: '98.5' });
    expect(computeWithdrawalAmounts({ amount: '1.00000001', withdrawalFee: '1' })).toEqual({ networkFee: '1', netPayout: '0.00000001' });
    expect(computeWithdrawalAmounts({ amount: '5', withdrawalFee: '0' })).toEqual({ networkFee: '0', netPayout: '5' });
  });

  it.each(['1', '0.5'])('refuses amount %s when the fee is 1', (amount) => {
    let err: unknown;
    try {
      computeWithdrawalAmounts({ amount, withdrawalFee: '1' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ kind: 'invalid', code: 'amount_not_above_fee', field: 'amount' });
  });
});
