/**
 * The daemon reads time through one clock. On devnet an operator can advance it; invoice expiry,
 * whitelist cooldown and the webhook retry schedule all follow it. The timer half matches XState's
 * `clock` option (createActor(machine, { clock })), so `after` delays run on this clock too.
 */
export interface Clock {
  now(): Date;
  setTimeout(fn: (...args: unknown[]) => void, timeoutMs: number): unknown;
  clearTimeout(id: unknown): void;
}
