import fs from 'node:fs';
import { Session } from 'node:inspector';

/**
 * `npm run bench -- --profile`: CPU profiles of a bench child's measured windows only. With
 * BENCH_PROFILE=heap, sampled allocation profiles instead (`.heapprofile` files: what was
 * allocated where, every 16 KiB on average, collected or not).
 */
export class Profiler {
  private session: Session | null = null;
  /** 'heap': every allocation; 'heap-promoted': what is still live or died in the old generation (minor GCs' garbage left out). */
  private readonly heap = process.env.BENCH_PROFILE === 'heap' || process.env.BENCH_PROFILE === 'heap-promoted';

  async start(): Promise<void> {
    this.session ??= new Session();
    this.session.connect();
    if (this.heap) {
      await this.post('HeapProfiler.enable');
      await this.post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: process.env.BENCH_PROFILE === 'heap' });
      return;
    }
    await this.post('Profiler.enable');
    // BENCH_PROFILE_INTERVAL_US: the sampling interval. 200 µs resolves short functions but roughly
    // doubles the CPU a request costs on a slow machine; 1000 distorts the profile less.
    await this.post('Profiler.setSamplingInterval', { interval: samplingIntervalUs(process.env.BENCH_PROFILE_INTERVAL_US) });
    await this.post('Profiler.start');
  }

  async stop(file: string): Promise<string> {
    const { profile } = (await this.post(this.heap ? 'HeapProfiler.stopSampling' : 'Profiler.stop')) as { profile: unknown };
    fs.writeFileSync(file, JSON.stringify(profile));
    this.session?.disconnect();
    return file;
  }

  private post(method: string, params?: object): Promise<unknown> {
    return new Promise((resolve, reject) => this.session!.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))));
  }
}

/** BENCH_PROFILE_INTERVAL_US as a whole number of microseconds (default 200); anything else is refused. */
export function samplingIntervalUs(setting: string | undefined): number {
  if (setting === undefined || setting === '') return 200;
  const us = Number(setting);
  if (!/^\d+$/.test(setting) || !Number.isSafeInteger(us) || us < 1) throw new Error(`BENCH_PROFILE_INTERVAL_US must be a whole number of microseconds (got ${JSON.stringify(setting)})`);
  return us;
}

/** CPU milliseconds this process has used (user + system). */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
