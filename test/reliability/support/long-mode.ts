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

/** CHAINPAY_RELIABILITY_TRACE=1: each test says where it is on stderr (long runs, and a test that times out). */
export function trace(what: string, detail: Record<string, unknown> = {}): void {
  if (process.env.CHAINPAY_RELIABILITY_TRACE === '1') process.stderr.write(`[reliability ${new Date().toISOString()}] ${what} ${JSON.stringify(detail)}\n`);
}
