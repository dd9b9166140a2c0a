import { Decimal as GlobalDecimal } from 'decimal.js';
import { Dec, ceilTo, formatAmount, fromBaseUnits, parseAmount, toBaseUnits, toDecimal } from './money';
import { DomainError, MalformedRequestError, ValidationError } from './errors';

const opts = { field: 'amount', maxDecimals: 8 };

function codeOf(fn: () => unknown): { cls: string; kind: string; code: string; field?: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return { cls: e.constructor.name, kind: e.kind, code: e.code, field: e.field };
    throw e;
  }
  throw new Error('did not throw');
}

describe('parseAmount', () => {
  it.each([
    ['10', '10'],
    ['10.5', '10.5'],
    ['10.50', '10.5'],
    ['0.00000001', '0.00000001'],
    ['1.500000000000', '1.5'], // trailing zeros are not decimals
    ['007.25', '7.25'],
    ['123456789012345678.12345678', '123456789012345678.12345678'], // 18 integer digits: the bound
    ['000123456789012345678', '123456789012345678'], // leading zeros are not digits of the value
  ])('accepts %j', (input, canonical) => {
    expect(formatAmount(parseAmount(input, opts))).toBe(canonical);
  });

  it.each(['', ' 1', '1 ', '-1', '+1', '1e3', '1E-3', '.5', '5.', '1,5', '0x10', 'NaN', 'Infinity', '1.2.3', '１', '1234567890123456789', '1234567890123456789012345678901'])(
    'refuses %j as invalid_amount (422)',
    (input) => {
      expect(codeOf(() => parseAmount(input, opts))).toEqual({ cls: 'ValidationError', kind: 'invalid', code: 'invalid_amount', field: 'amount' });
    },
  );

  it('refuses more decimals than allowed', () => {
    expect(codeOf(() => parseAmount('0.000000001', opts)).code).toBe('too_many_decimals');
    expect(codeOf(() => parseAmount('1.1234567', { field: 'x', maxDecimals: 6 }))).toMatchObject({ code: 'too_many_decimals', field: 'x' });
  });

  it.each(['0', '0.0', '0000.00000000'])('refuses zero %j', (input) => {
    expect(codeOf(() => parseAmount(input, opts)).code).toBe('amount_must_be_positive');
  });

  it.each([10, 10.5, null, undefined, true, {}, ['1']])('refuses the non-string %j as a malformed body (400)', (input) => {
    const err = codeOf(() => parseAmount(input, opts));
    expect(err).toEqual({ cls: 'MalformedRequestError', kind: 'malformed', code: 'invalid_body', field: 'amount' });
  });

  it('throws the classes of ./errors', () => {
    expect(() => parseAmount(1, opts)).toThrow(MalformedRequestError);
    expect(() => parseAmount('x', opts)).toThrow(ValidationError);
  });
});

describe('formatAmount', () => {
  it.each([
    ['10.50', '10.5'],
    ['0', '0'],
    ['0.000', '0'],
    ['100', '100'],
    ['-2.50', '-2.5'],
  ])('%j -> %j', (input, out) => expect(formatAmount(input)).toBe(out));

  it('never uses exponents', () => {
    expect(formatAmount(new Dec('1e-18'))).toBe('0.000000000000000001');
    expect(formatAmount(new Dec('1e30'))).toBe('1000000000000000000000000000000');
    // also for instances of the global constructor, whatever its config
    expect(formatAmount(new GlobalDecimal('1e-7'))).toBe('0.0000001');
    expect(formatAmount(new Dec('-0'))).toBe('0');
  });

  it('is not affected by the global Decimal config', () => {
    const saved = GlobalDecimal.precision;
    GlobalDecimal.set({ precision: 5 });
    try {
      expect(toDecimal('123456789.123456789').plus('0.000000001').toFixed()).toBe('123456789.12345679');
    } finally {
      GlobalDecimal.set({ precision: saved });
    }
  });
});

describe('toDecimal', () => {
  it.each(['1e5', ' 1', '', 'abc', '0x1'])('refuses %j', (input) => expect(() => toDecimal(input)).toThrow(RangeError));
  it('refuses non-finite decimals', () => expect(() => toDecimal(new Dec(Infinity))).toThrow(RangeError));
});

describe('ceilTo', () => {
  it.each([
    ['10.1234561', 6, '10.123457'],
    ['10.123456', 6, '10.123456'],
    ['10.12345600001', 6, '10.123457'],
    ['0.00000001', 6, '0.000001'],
    ['5', 0, '5'],
    ['5.0000001', 0, '6'],
    ['1.1234567890123456789', 18, '1.123456789012345679'],
  ])('ceilTo(%j, %d) = %j', (input, decimals, out) => {
    expect(formatAmount(ceilTo(input, decimals))).toBe(out);
  });
});

describe('base units', () => {
  it.each([
    ['10.5', 6, 10500000n],
    ['0.000001', 6, 1n],
    ['1', 18, 1000000000000000000n],
    ['0.000000000000000001', 18, 1n],
    ['123456789012345678901234567890.123456789012345678', 18, 123456789012345678901234567890123456789012345678n],
    ['0', 6, 0n],
  ])('%j with %d decimals <-> %s', (amount, decimals, units) => {
    expect(toBaseUnits(amount, decimals)).toBe(units);
    expect(fromBaseUnits(units, decimals)).toBe(formatAmount(amount));
  });

  it('accepts Decimals', () => expect(toBaseUnits(new Dec('2.5'), 6)).toBe(2500000n));

  it('refuses amounts finer than the token', () => {
    expect(codeOf(() => toBaseUnits('0.0000001', 6)).code).toBe('too_many_decimals');
  });

  it('formats base units canonically', () => {
    expect(fromBaseUnits(1000000n, 6)).toBe('1');
    expect(fromBaseUnits(1n, 18)).toBe('0.000000000000000001');
    expect(fromBaseUnits(-1500000n, 6)).toBe('-1.5');
    expect(fromBaseUnits(42n, 0)).toBe('42');
  });
});
