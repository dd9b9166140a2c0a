import fs from 'node:fs';
import path from 'node:path';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function statTimes(pid: number): { own: number; children: number; ppid: number } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After "pid (comm) ": state=0, ppid=1, ... utime=11, stime=12, cutime=13, cstime=14
    return { ppid: Number(fields[1]), own: Number(fields[11]) + Number(fields[12]), children: Number(fields[13]) + Number(fields[14]) };
  } catch {
    return null;
  }
}

/**
 * CPU milliseconds a single-threaded process (a PostgreSQL backend) used so far; 0 once it is gone.
 * Linux only: /proc/PID/schedstat's nanoseconds on a CPU where the kernel has it (they count the
 * main thread only; a short burst's backends use a few ticks each, so /proc/PID/stat's 10 ms ticks
 * would be too coarse), else user + system ticks.
 */
export function processCpuMs(pid: number): number {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    const s = statTimes(pid);
    return s ? (s.own * 1000) / TICKS_PER_SECOND : 0;
  }
}

/**
 * CPU milliseconds used so far by a process tree: the root, its live children, and the children
 * that already exited (cutime/cstime). Linux only; used to show where a scenario's CPU went
 * (e.g. the embedded PostgreSQL under DATA_DIR/postgres).
 */
export function treeCpuMs(rootPid: number): number {
  const root = statTimes(rootPid);
  if (!root) return 0;
  let ticks = root.own + root.children;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = statTimes(Number(entry));
    if (s && s.ppid === rootPid) ticks += s.own;
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** The postmaster's pid of the embedded PostgreSQL under DATA_DIR (null when not running). */
export function embeddedPostgresPid(dataDir: string): number | null {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Waits until `cpuMs` (a process's or a tree's CPU milliseconds so far) grows by less than
 * `maxShare` of one core over a 500 ms window: background work started by an earlier phase (the
 * address pool refilling after a burst of invoices, say) must not be counted in a measured
 * window. Resolves with how long it waited; gives up (and says so) after `timeoutMs`.
 */
export async function waitQuiet(cpuMs: () => Promise<number>, options: { maxShare?: number; timeoutMs?: number } = {}): Promise<{ waitedMs: number; quiet: boolean }> {
  const maxShare = options.maxShare ?? 0.05;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const started = Date.now();
  let before = await cpuMs();
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await cpuMs();
    if (now - before < 500 * maxShare) return { waitedMs: Date.now() - started, quiet: true };
    if (Date.now() - started > timeoutMs) return { waitedMs: Date.now() - started, quiet: false };
    before = now;
  }
}
