import type { Child } from './ipc';
import type { LoadResult, OpenLoop } from './http-load';
import type { LoopDelay } from './loop-delay';
import { profiled, type BenchContext, type Server } from './context';

export interface PacedWindow {
  readonly paced: LoadResult;
  /** Event-loop delay of the daemon and the gateway over the window, and where the slow requests were: to tell a stall in our processes from queueing. */
  readonly stalls: string;
  /** The delays and how many slots were slow, for BENCHMARKS.md; the log keeps the slots. */
  readonly stallsBrief: string;
}

/** An open-loop window with the server processes' event-loop delay and the window's slow 100 ms slots recorded beside it. */
export async function pacedWindow(ctx: BenchContext, server: Server, load: Child, name: string, params: Omit<OpenLoop, 'mode'>): Promise<PacedWindow> {
  const processes = server.gateway ? [server.child, server.gateway] : [server.child];
  for (const p of processes) await p.call('loopDelayStart');
  // Wall-clock time of the measured window's start (after the warm-up), to line the slots up with log lines and GC traces.
  const windowStart = new Date(Date.now() + params.warmupMs).toISOString().slice(11, 23);
  const paced = await profiled(ctx, server, name, () => load.call<LoadResult>('http', { mode: 'open', ...params }));
  const [daemonLoop, gatewayLoop] = await Promise.all(processes.map((p) => p.call<LoopDelay>('loopDelayStop')));
  const delays = `daemon p99 ${daemonLoop!.p99Ms.toFixed(1)} ms, max ${daemonLoop!.maxMs.toFixed(0)} ms${gatewayLoop ? `; gateway p99 ${gatewayLoop.p99Ms.toFixed(1)} ms, max ${gatewayLoop.maxMs.toFixed(0)} ms` : ''}`;
  const all = paced.slowSlots ?? [];
  const list = (slots: typeof all): string => slots.map((s) => `${s.atMs}: ${s.count}, ${s.maxMs}`).join('; ') || 'none';
  const head = `event-loop delay ${delays}; load generator max ${paced.ownLoopDelay?.maxMs.toFixed(0)} ms; slow 100 ms slots after the window's start at ~${windowStart} UTC (at ms: requests over 20 ms, slowest): `;
  // BENCHMARKS.md keeps the delays and the count of slow slots; the run's log lists them.
  const brief = `event-loop delay ${delays}; load generator max ${paced.ownLoopDelay?.maxMs.toFixed(0)} ms; ${all.length} slow 100 ms slots (listed in the run's log)`;
  return { paced, stalls: head + list(all), stallsBrief: brief };
}
