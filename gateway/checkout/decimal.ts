/**
 * Display arithmetic on the daemon's canonical decimal strings ("10.5", "0.000001"), exact, on
 * bigint. The gateway has no decimal library; it only adds, subtracts and rounds up for display:
 * every amount that counts is the daemon's.
 */
interface Fixed {
  readonly units: bigint;
  readonly scale: number;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

export class DecimalFormatError extends Error {
  override readonly name = 'DecimalFormatError';
  constructor(readonly value: string) {
    super('not a decimal string');
  }
}

function parse(value: string): Fixed {
  const m = DECIMAL.exec(value);
  if (!m) throw new DecimalFormatError(value);
  const fraction = m[3] ?? '';
  const units = BigInt(m[2]! + fraction);
  return { units: m[1] ? -units : units, scale: fraction.length };
}

function align(a: Fixed, b: Fixed): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.units * 10n ** BigInt(scale - a.scale), b.units * 10n ** BigInt(scale - b.scale), scale];
}

/** Canonical text: no trailing zeros, "0" for zero. */
function format({ units, scale }: Fixed): string {
  if (units === 0n) return '0';
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

export function addDecimal(a: string, b: string): string {
  const [x, y, scale] = align(parse(a), parse(b));
  return format({ units: x + y, scale });
}

export function subtractDecimal(a: string, b: string): string {
  const [x, y, scale] = align(parse(a), parse(b));
  return format({ units: x - y, scale });
}

/** -1, 0 or 1. */
export function compareDecimal(a: string, b: string): number {
  const [x, y] = align(parse(a), parse(b));
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Rounds up (towards +∞) to `decimals` places, as the daemon makes pay_amount payable. */
export function ceilDecimal(value: string, decimals: number): string {
  const f = parse(value);
  if (f.scale <= decimals) return format(f);
  const divisor = 10n ** BigInt(f.scale - decimals);
  let q = f.units / divisor;
  if (f.units % divisor !== 0n && f.units > 0n) q += 1n;
  return format({ units: q, scale: decimals });
}
