import pino, { type Logger } from 'pino';

/**
 * Test hook (CHAINPAY_TEST_KILL_AT): SIGKILL the daemon at this point of a payout, once per process.
 * `after_sign`: after any signing step (a stored transaction reused included); `after_resign`: only
 * after a new signature made because the stored transaction expired, before it is broadcast.
 */
export type PayoutKillPoint = 'after_sign' | 'after_resign' | 'after_broadcast';

/** CHAINPAY_TEST_KILL_AT=after_sign|after_resign|after_broadcast (crash tests); anything else: no hook. */
export function killPointFromEnv(value: string | undefined): PayoutKillPoint | undefined {
  return value === 'after_sign' || value === 'after_resign' || value === 'after_broadcast' ? value : undefined;
}

/** Never resolves when it fires: nothing after this point may run before the kill. */
export async function killAt(logger: Logger, point: PayoutKillPoint): Promise<void> {
  logger.warn({ point }, 'CHAINPAY_TEST_KILL_AT reached: killing the daemon');
  // Buffered log lines would die with the process (tests read them): write them out first.
  // sonic-boom's flushSync writes what is queued but skips (or refuses during) an async write
  // already under way, which SIGKILL would cut off: retried until no write is under way, for up
  // to 10 s. Nothing else of this payout runs meanwhile: the step holds its payout slot.
  type Destination = { flushSync?: () => void; _writing?: boolean };
  const stream = (logger as unknown as Record<symbol, Destination | undefined>)[pino.symbols.streamSym];
  for (let attempt = 0; attempt < 1000; attempt++) {
    try {
      stream?.flushSync?.();
      if (!stream?._writing) break;
    } catch {
      // under way: try again shortly
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  process.kill(process.pid, 'SIGKILL');
  await new Promise<never>(() => undefined);
}
