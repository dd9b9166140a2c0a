import { formatAmount, toDecimal } from '../domain/decimal';
import type { NetworkTreasuryConfig } from './config';

/** What the policy knows of one deposit address. */
export interface AddressHolding {
  /** Token balance on the chain (decimal string). */
  readonly balance: string;
  /** A credited deposit to it is still confirming: its funds are not final, nothing moves. */
  readonly confirming: boolean;
  /** When its oldest unswept final deposit was seen (null: none). */
  readonly oldestAt: Date | null;
}

export interface SweepDecision {
  readonly sweep: boolean;
  readonly reason: 'not_final' | 'empty' | 'below_min' | 'min_reached' | 'aged' | 'manual';
}

/**
 * When an address is swept (issue 47, "When"): all of its credited deposits final, and either its
 * balance reaches <CODE>_SWEEP_MIN, or it has held more than a typical sweep fee for
 * SWEEP_MAX_AGE_HOURS. A manual sweep takes any final balance above zero.
 */
export function decideSweep(h: AddressHolding, cfg: NetworkTreasuryConfig, maxAgeHours: number, now: Date, manual = false): SweepDecision {
  if (h.confirming) return { sweep: false, reason: 'not_final' };
  const balance = toDecimal(h.balance);
  if (balance.lte(0)) return { sweep: false, reason: 'empty' };
  if (manual) return { sweep: true, reason: 'manual' };
  if (balance.gte(cfg.sweepMin)) return { sweep: true, reason: 'min_reached' };
  const aged = h.oldestAt !== null && now.getTime() - h.oldestAt.getTime() >= maxAgeHours * 3_600_000;
  if (aged && balance.gt(cfg.typicalFee)) return { sweep: true, reason: 'aged' };
  return { sweep: false, reason: 'below_min' };
}

export interface SweepSplit {
  readonly target: 'hot' | 'cold';
  readonly amount: string;
}

/**
 * Where an address's `balance` goes. Without <CODE>_HOT_MAX: all of it to hot. With it: to hot up to
 * the room left under HOT_MAX (`hotHolding` = the hot wallet plus sweeps in flight to it); once there
 * is no room, to cold. One destination per sweep: an address that fills the room is swept to hot for
 * the room only, and its rest goes to cold on the next pass, so cold only ever receives the excess.
 */
export function splitSweep(balance: string, hotHolding: string, cfg: NetworkTreasuryConfig): SweepSplit {
  if (cfg.hotMax === null) return { target: 'hot', amount: formatAmount(balance) };
  const room = toDecimal(cfg.hotMax).minus(hotHolding);
  if (room.lte(0)) return { target: 'cold', amount: formatAmount(balance) };
  return { target: 'hot', amount: formatAmount(toDecimal(balance).lt(room) ? toDecimal(balance) : room) };
}
