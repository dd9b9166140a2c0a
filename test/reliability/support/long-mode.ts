/**
 * The reliability suite runs a short sample in `npm test` and a long mode for release checks:
 * `npm run test:reliability -- --long` (scripts/test-reliability.js sets CHAINPAY_RELIABILITY_LONG=1).
 * Every count in the suite goes through `scaled`, so the two modes run the same code.
 */
export const LONG_MODE = process.env.CHAINPAY_RELIABILITY_LONG === '1';

/** The sample's count in `npm test`, the long mode's count otherwise. */
export function scaled(sample: number, long: number): number {
  return LONG_MODE ? long : sample;
}

/** The seed of this run: CHAINPAY_RELIABILITY_SEED reproduces a failing run; otherwise fixed in the sample, random in long mode. */
export function runSeed(fallback: number): number {
  const given = process.env.CHAINPAY_RELIABILITY_SEED;
  if (given !== undefined && given !== '') return Number(given);
  return LONG_MODE ? Math.floor(Math.random() * 2 ** 31) : fallback;
}
