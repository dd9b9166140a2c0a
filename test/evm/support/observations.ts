import type { ChainObservation, ObservationSink, WatchedAddresses } from '../../../src/chains/types';

/** Records what an adapter emits and waits for conditions on it. */
export class Observed {
  readonly all: ChainObservation[] = [];
  readonly errors: Error[] = [];
  readonly sink: ObservationSink = async (o) => {
    this.all.push(o);
  };
  readonly onError = (e: Error): void => {
    this.errors.push(e);
  };

  of<K extends ChainObservation['kind']>(kind: K): Array<Extract<ChainObservation, { kind: K }>> {
    return this.all.filter((o): o is Extract<ChainObservation, { kind: K }> => o.kind === kind);
  }

  /** Height of the last `block` observation. */
  tip(): number {
    return this.of('block').at(-1)?.height ?? -1;
  }

  async until(predicate: () => boolean, what = 'condition', ms = 15_000): Promise<void> {
    const end = Date.now() + ms;
    while (!predicate()) {
      if (Date.now() > end)
        throw new Error(
          `timed out waiting for ${what}; last errors: ${this.errors
            .slice(-3)
            .map((e) => e.message)
            .join(' | ')}`,
        );
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

export function watchedSet(addresses: Iterable<string>): WatchedAddresses & { add(a: string): void } {
  const set = new Set([...addresses].map((a) => a.toLowerCase()));
  return { has: (a) => set.has(a), size: () => set.size, values: () => set.values(), add: (a) => void set.add(a.toLowerCase()) };
}
