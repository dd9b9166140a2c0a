import { performance } from 'node:perf_hooks';
import { HttpConnection } from './http-connection';
import { requestFactory, type RequestSpec } from './requests';
import { summarize, type LatencySummary } from './stats';
import { LoopDelayProbe, type LoopDelay } from './loop-delay';

export interface LoadResult {
  /** Requests completed inside the measured window (after warm-up). */
  readonly completed: number;
  /** Of those, answered with a status outside `okStatuses` or failed on the socket. */
  readonly errors: number;
  readonly statuses: Record<string, number>;
  readonly windowMs: number;
  /** completed / window, requests per second. */
  readonly throughput: number;
  /** Milliseconds; in open-loop mode measured from the scheduled send time (no coordinated omission). */
  readonly latency: LatencySummary;
  /** Open loop: requests that waited for a free connection at least once. */
  readonly queued: number;
  /** Open loop: the 100 ms slots of the window (by schedule) whose slowest request took over 20 ms, and this process's own event-loop delay. */
  readonly slowSlots?: readonly { readonly atMs: number; readonly count: number; readonly maxMs: number }[];
  readonly ownLoopDelay?: LoopDelay;
  /** Open loop: the window's start on the monotonic clock (µs, as CPU profiles' timestamps), to line slots up with a profile. */
  readonly windowStartMonoUs?: number;
  readonly firstError: string | null;
  /** One body of a successful response (to size the bare server's body), when asked for. */
  readonly sampleBody?: string;
  /** Closed loop: this process's CPU milliseconds from the first request to the last (warm-up included). */
  readonly clientCpuMs?: number;
}

interface Common {
  readonly port: number;
  readonly request: RequestSpec;
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly okStatuses: readonly number[];
  readonly keepSample?: boolean;
}

export interface ClosedLoop extends Common {
  readonly mode: 'closed';
  readonly concurrency: number;
  /** Stop sending after this many requests (requests 0..n-1 of the factory), even before the window ends. */
  readonly maxRequests?: number;
}

export interface OpenLoop extends Common {
  readonly mode: 'open';
  /** Requests per second, sent on a fixed schedule. */
  readonly rate: number;
  /** Connections kept open; a request due while all are busy waits for one (its wait counts). */
  readonly connections: number;
}

class Recorder {
  readonly latencies: number[] = [];
  readonly statuses: Record<string, number> = {};
  completed = 0;
  errors = 0;
  firstError: string | null = null;
  sampleBody: string | undefined;
  /** Open loop: [scheduled time, latency] of every recorded success, in ms. */
  readonly timeline: [number, number][] = [];

  constructor(
    private readonly windowStart: number,
    private readonly windowEnd: number,
    private readonly ok: ReadonlySet<number>,
    private readonly keepSample: boolean,
    /** Open loop: every request scheduled in the window counts, however late it completes. */
    private readonly bySchedule = false,
  ) {}

  record(startedAt: number, endedAt: number, status: number | string, body?: Buffer): void {
    if (startedAt < this.windowStart || (this.bySchedule ? startedAt >= this.windowEnd : endedAt > this.windowEnd)) return;
    this.completed++;
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
    if (typeof status !== 'number' || !this.ok.has(status)) {
      this.errors++;
      this.firstError ??= `${status}: ${body?.toString('utf8').slice(0, 300) ?? ''}`;
      return;
    }
    if (this.keepSample && this.sampleBody === undefined && body) this.sampleBody = body.toString('utf8');
    this.latencies.push(endedAt - startedAt);
    if (this.bySchedule) this.timeline.push([startedAt, endedAt - startedAt]);
  }
}

async function openConnections(port: number, n: number): Promise<HttpConnection[]> {
  return Promise.all(Array.from({ length: n }, () => HttpConnection.open(port)));
}

function result(rec: Recorder, windowMs: number, queued: number): LoadResult {
  return {
    completed: rec.completed,
    errors: rec.errors,
    statuses: rec.statuses,
    windowMs,
    throughput: (rec.completed - rec.errors) / (windowMs / 1000),
    latency: summarize(rec.latencies),
    queued,
    firstError: rec.firstError,
    ...(rec.sampleBody !== undefined ? { sampleBody: rec.sampleBody } : {}),
  };
}

/** A fixed number of clients, each sending its next request as soon as the previous one is answered. */
export async function closedLoop(o: ClosedLoop): Promise<LoadResult> {
  const make = requestFactory(o.request);
  const conns = await openConnections(o.port, o.concurrency);
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const windowStart = start + o.warmupMs;
  const end = windowStart + o.durationMs;
  const rec = new Recorder(windowStart, end, new Set(o.okStatuses), o.keepSample ?? false);
  let seq = 0;
  await Promise.all(
    conns.map(async (conn) => {
      while (performance.now() < end && seq < (o.maxRequests ?? Infinity)) {
        const t0 = performance.now();
        try {
          const res = await conn.request(make(seq++));
          rec.record(t0, performance.now(), res.status, res.body);
        } catch (err) {
          rec.record(t0, performance.now(), `socket: ${(err as Error).message}`);
          return;
        }
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  for (const c of conns) c.close();
  return { ...result(rec, o.durationMs, 0), clientCpuMs: (cpu.user + cpu.system) / 1000 };
}

type SlowSlot = { atMs: number; count: number; maxMs: number };

/** The 100 ms slots (by scheduled time, from the window's start) holding requests slower than 20 ms. */
function slowSlots(timeline: readonly [number, number][], windowStart: number): SlowSlot[] {
  const slots = new Map<number, SlowSlot>();
  for (const [at, ms] of timeline) {
    if (ms <= 20) continue;
    const atMs = Math.floor((at - windowStart) / 100) * 100;
    const slot = slots.get(atMs) ?? { atMs, count: 0, maxMs: 0 };
    slot.count++;
    slot.maxMs = Math.max(slot.maxMs, Math.round(ms));
    slots.set(atMs, slot);
  }
  return [...slots.values()];
}

/** Requests sent on a fixed schedule whatever the server's pace; latency counts from the schedule. */
export async function openLoop(o: OpenLoop): Promise<LoadResult> {
  const make = requestFactory(o.request);
  const all = await openConnections(o.port, o.connections);
  const free = [...all];
  const start = performance.now();
  const startMonoUs = Number(process.hrtime.bigint() / 1000n);
  const windowStart = start + o.warmupMs;
  const end = windowStart + o.durationMs;
  const rec = new Recorder(windowStart, end, new Set(o.okStatuses), o.keepSample ?? false, true);
  const interval = 1000 / o.rate;
  const backlog: number[] = []; // scheduled times waiting for a connection
  let sent = 0;
  let queued = 0;
  let inFlight = 0;

  const fire = (conn: HttpConnection, scheduled: number) => {
    inFlight++;
    conn.request(make(sent++)).then(
      (res) => {
        rec.record(scheduled, performance.now(), res.status, res.body);
        release(conn);
      },
      (err: Error) => {
        rec.record(scheduled, performance.now(), `socket: ${err.message}`);
        inFlight--;
      },
    );
  };
  const release = (conn: HttpConnection) => {
    inFlight--;
    const next = backlog.shift();
    if (next !== undefined) fire(conn, next);
    else free.push(conn);
  };

  const probe = new LoopDelayProbe();
  probe.start();
  let due = start;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (due <= now && due < end) {
        const conn = free.pop();
        if (conn) fire(conn, due);
        else {
          backlog.push(due);
          queued++;
        }
        due += interval;
      }
      if (due < end) setTimeout(tick, Math.max(0, Math.min(1, due - performance.now())));
      else resolve();
    };
    tick();
  });
  // Let what was sent inside the window finish (bounded).
  const drainUntil = performance.now() + 10_000;
  while ((inFlight > 0 || backlog.length > 0) && performance.now() < drainUntil) await new Promise((r) => setTimeout(r, 5));
  for (const c of all) c.close();
  const ownLoopDelay = probe.stop();
  return { ...result(rec, o.durationMs, queued), slowSlots: slowSlots(rec.timeline, windowStart), ownLoopDelay, windowStartMonoUs: startMonoUs + o.warmupMs * 1000 };
}

export interface Burst {
  readonly mode: 'burst';
  readonly port: number;
  readonly request: RequestSpec;
  /** Requests, all sent at once, each on its own connection (opened beforehand). */
  readonly count: number;
}

export interface BurstResult {
  /** From the first byte sent to the last response read. */
  readonly elapsedMs: number;
  /** count / elapsed, requests per second. */
  readonly throughput: number;
  readonly statuses: Record<string, number>;
  readonly latency: LatencySummary;
  /** Body of every response, in request order (the caller checks what was refused and why). */
  readonly bodies: readonly string[];
  /** When each answer was read, ms after the first byte sent, in request order (NaN: socket error). */
  readonly answeredMs: readonly number[];
  readonly firstSocketError: string | null;
  /** CPU this load process spent in the burst (user + system), ms. */
  readonly clientCpuMs: number;
}

/** `count` requests in flight at the same moment: the contention case (each answered once). */
export async function burst(o: Burst): Promise<BurstResult> {
  const make = requestFactory(o.request);
  const conns = await openConnections(o.port, o.count);
  const requests = conns.map((_, i) => make(i));
  const statuses: Record<string, number> = {};
  const bodies: string[] = new Array<string>(o.count).fill('');
  const answeredMs: number[] = new Array<number>(o.count).fill(Number.NaN);
  const latencies: number[] = [];
  let firstSocketError: string | null = null;
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    conns.map(async (conn, i) => {
      try {
        const res = await conn.request(requests[i]!);
        answeredMs[i] = performance.now() - start;
        latencies.push(answeredMs[i]!);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        bodies[i] = res.body.toString('utf8');
      } catch (err) {
        firstSocketError ??= (err as Error).message;
        statuses.socket = (statuses.socket ?? 0) + 1;
      }
    }),
  );
  const elapsedMs = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  for (const c of conns) c.close();
  return { elapsedMs, throughput: o.count / (elapsedMs / 1000), statuses, latency: summarize(latencies), bodies, answeredMs, firstSocketError, clientCpuMs: (cpu.user + cpu.system) / 1000 };
}
