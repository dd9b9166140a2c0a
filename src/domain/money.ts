/** Money in one import: decimal arithmetic, client amounts, token base units. */
export { Dec, toDecimal, formatAmount, ceilTo, maxAmount, type Decimal, type AmountLike } from './decimal';
export { parseAmount, type ParseAmountOptions } from './amount';
export { toBaseUnits, fromBaseUnits } from './base-units';
