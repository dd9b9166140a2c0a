import type { InvoiceMachineContext } from '../../domain/invoice-context';
import { invoiceStateOf } from '../../domain/invoice-machine';
import { lateWindowEndsAt } from '../../domain/invoice-step';
import { isTerminalInvoiceStatus } from '../../domain/invoice-status';
import type { WithdrawalMachineContext } from '../../domain/withdrawal-context';

/** "in 4m 10s" / "due" relative to the daemon clock. */
export function relative(dueIso: string, now: Date): string {
  const ms = Date.parse(dueIso) - now.getTime();
  if (ms <= 0) return 'due';
  const s = Math.ceil(ms / 1000);
  const parts = [
    [Math.floor(s / 86400), 'd'],
    [Math.floor((s % 86400) / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'm'],
    [s % 60, 's'],
  ] as const;
  return `in ${parts
    .filter(([n]) => n > 0)
    .map(([n, u]) => `${n}${u}`)
    .join(' ')}`;
}

/**
 * The invoice actor's timers, derived from its state and context (XState keeps `after` delays only
 * in the running system): the expiry while open, the end of the late-payment window once ended.
 */
export function invoiceTimers(ctx: InvoiceMachineContext, stateValue: unknown, now: Date): string[] {
  const state = invoiceStateOf(stateValue);
  if (state === 'closed' || state === 'created') return [];
  const ended = isTerminalInvoiceStatus(state);
  const due = ended ? lateWindowEndsAt(ctx) : ctx.expiresAt;
  if (due === null) return [];
  const waiting = typeof stateValue === 'object' && stateValue !== null && Object.values(stateValue).includes('awaitingChain');
  return [`${ended ? 'late_window_end' : 'expiry'} at ${due} (${waiting ? 'waiting for the chain time' : relative(due, now)})`];
}

/** The withdrawal machine's `after: pollInterval` states, named by their leaf state. */
const POLLING: Record<string, string> = {
  waiting: 'payout status check',
  signRetry: 'sign retry',
  broadcastRetry: 'broadcast retry',
};

function leaves(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(leaves);
  return [];
}

/** A waiting withdrawal re-polls (or retries) within its poll interval. */
export function withdrawalTimers(ctx: WithdrawalMachineContext, stateValue: unknown): string[] {
  return leaves(stateValue)
    .filter((leaf) => leaf in POLLING)
    .map((leaf) => `${POLLING[leaf]} within ${ctx.pollIntervalMs} ms (state ${leaf})`);
}
