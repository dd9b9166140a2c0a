import os from 'node:os';
import { fmt } from './report';
import { median } from './stats';

/** CPU microseconds one unit of work (a request, a row) cost in one process or group of processes. */
export interface CpuShare {
  readonly name: string;
  readonly us: number;
}

/**
 * What the cores of this machine can do at a measured CPU cost per unit, when the work is
 * CPU-bound: every process of a scenario (server, PostgreSQL, load generator) runs on the same
 * cores, so their CPU per unit adds up, and `cores / total` bounds the rate whatever the latency.
 */
export interface CpuBudget {
  readonly shares: readonly CpuShare[];
  /** µs per unit over every share. */
  readonly totalUs: number;
  readonly cores: number;
  /** Units per second with every core busy all the time at this cost. */
  readonly ceilingPerSecond: number;
}

export function cpuBudget(shares: readonly CpuShare[], cores: number = os.cpus().length): CpuBudget {
  const totalUs = shares.reduce((sum, s) => sum + s.us, 0);
  return { shares, totalUs, cores, ceilingPerSecond: totalUs > 0 ? (cores * 1e6) / totalUs : Infinity };
}

/** A scenario's request through the service, from each run's µs per request: the medians of every process group. */
export function serviceBudget(runs: { readonly server: readonly number[]; readonly postgres: readonly number[]; readonly load: readonly number[] }): CpuBudget {
  return cpuBudget([
    { name: 'daemon + gateway', us: median(runs.server) },
    { name: 'PostgreSQL', us: median(runs.postgres) },
    { name: 'load generator', us: median(runs.load) },
  ]);
}

/** A SQL baseline's statement: its own PostgreSQL backends and its client, medians over the runs. */
export function sqlBaselineBudget(runs: { readonly backends: readonly number[]; readonly client: readonly number[] }): CpuBudget {
  return cpuBudget([
    { name: 'PostgreSQL backends', us: median(runs.backends) },
    { name: 'client', us: median(runs.client) },
  ]);
}

/** Cores `rate` units per second take at the budget's CPU per unit. */
export function coresFor(budget: CpuBudget, rate: number): number {
  return (rate * budget.totalUs) / 1e6;
}

/** "1,790 µs (daemon + gateway 1,300, PostgreSQL 380, load generator 110)" */
export function describeBudget(budget: CpuBudget): string {
  return `${fmt(budget.totalUs, 'µs')} (${budget.shares.map((s) => `${s.name} ${fmt(s.us, '')}`).join(', ')})`;
}
