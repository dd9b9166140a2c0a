import { canonicalAmount, fromBaseUnits, toBaseUnits } from './amount';

describe('token amounts', () => {
  it('converts decimal strings to base units exactly', () => {
    expect(toBaseUnits('10.5', 6)).toBe(10_500_000n);
    expect(toBaseUnits('0.000001', 6)).toBe(1n);
    expect(toBaseUnits('7', 0)).toBe(7n);
    expect(toBaseUnits('1.500000', 6)).toBe(1_500_000n); // trailing zeros are not extra precision
    expect(toBaseUnits('123456789012.123456789012345678', 18)).toBe(123456789012123456789012345678n);
  });

  it('refuses malformed amounts and excess precision', () => {
    for (const bad of ['', '-1', '1e3', '1.', '.5', ' 1', '0x10', '1,5']) {
      expect(() => toBaseUnits(bad, 6)).toThrow(expect.objectContaining({ code: 'invalid_amount' }));
    }
    expect(() => toBaseUnits('1.0000001', 6)).toThrow(expect.objectContaining({ code: 'amount_precision', field: 'amount' }));
    // Exact up to 80 digits of base units (decimal.js at 80 digits), refused beyond rather than rounded.
    expect(toBaseUnits(`${'9'.repeat(62)}.${'9'.repeat(18)}`, 18)).toBe(10n ** 80n - 1n);
    expect(() => toBaseUnits(`1${'0'.repeat(62)}`, 18)).toThrow(expect.objectContaining({ code: 'invalid_amount' }));
  });

  it('formats base units canonically', () => {
    expect(fromBaseUnits(10_500_000n, 6)).toBe('10.5');
    expect(fromBaseUnits(1n, 6)).toBe('0.000001');
    expect(fromBaseUnits(0n, 6)).toBe('0');
    expect(fromBaseUnits(5n * 10n ** 18n, 18)).toBe('5');
    expect(canonicalAmount('010.50', 6)).toBe('10.5');
  });
});
