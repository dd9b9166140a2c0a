/** Exponential backoff with jitter: attempt 1 waits about initialMs, doubling up to maxMs. */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number, random: () => number = Math.random): number {
  const exp = Math.min(maxMs, initialMs * 2 ** Math.max(0, attempt - 1));
  // Jitter in [50%, 100%] spreads the retries of many watchers hitting one provider.
  return Math.round(exp * (0.5 + random() / 2));
}

/** A sleep that ends early (resolving false) when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
