import type { Clock } from '../../domain/clock';
import type { ChainObservation, WatchedAddresses } from '../types';

/**
 * Test helpers for the devnet (imported by *.test.ts only): a manual clock, a recording sink and
 * a counting watched set.
 */

export interface ManualClock extends Clock {
  advance(ms: number): void;
}

export function manualClock(start = Date.parse('2025-01-01T00:00:00Z')): ManualClock {
  let now = start;
  let nextId = 1;
  const timers = new Map<number, { due: number; fn: () => void }>();
  return {
    now: () => new Date(now),
    setTimeout: (fn, ms) => {
      const id = nextId++;
      timers.set(id, { due: now + ms, fn: fn as () => void });
      return id;
    },
    clearTimeout: (id) => void timers.delete(id as number),
    advance(ms) {
      now += ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.due <= now).sort((a, b) => a[1].due - b[1].due)[0];
        if (!due) break;
        timers.delete(due[0]);
        due[1].fn();
      }
    },
  };
}

export class Recorder {
  readonly seen: ChainObservation[] = [];
  readonly sink = async (observation: ChainObservation): Promise<void> => {
    this.seen.push(observation);
  };

  of<K extends ChainObservation['kind']>(kind: K): Extract<ChainObservation, { kind: K }>[] {
    return this.seen.filter((o): o is Extract<ChainObservation, { kind: K }> => o.kind === kind);
  }

  /** Resolves once `predicate` holds (the watch loop runs on the event loop). */
  async until(predicate: (seen: ChainObservation[]) => boolean, timeoutMs = 2000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.seen)) {
      if (Date.now() > deadline) throw new Error(`timed out; saw ${JSON.stringify(this.seen.map((o) => o.kind))}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  /** The last block observation's height. */
  lastBlock(): number {
    const blocks = this.of('block');
    return blocks[blocks.length - 1]?.height ?? -1;
  }
}

/** Resolves once `predicate` holds (polled; the chain's writes and the watch loop run on the event loop). */
export async function eventually(predicate: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** A watched set that counts lookups and refuses iteration (scans must not walk the whole set). */
export class CountingSet implements WatchedAddresses {
  lookups = 0;
  constructor(private readonly set: Set<string>) {}
  has(address: string): boolean {
    this.lookups++;
    return this.set.has(address);
  }
  size(): number {
    return this.set.size;
  }
  values(): Iterable<string> {
    throw new Error('the devnet must not iterate the watched set');
  }
}
