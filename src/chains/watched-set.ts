import type { WatchedSet } from './types';

/** A watched set of plain Set lookups, for families that match a normalized recipient as is. */
export class PlainWatchedSet implements WatchedSet {
  private readonly set = new Set<string>();

  has(normalized: string): boolean {
    return this.set.has(normalized);
  }
  size(): number {
    return this.set.size;
  }
  values(): Iterable<string> {
    return this.set.values();
  }
  addAll(normalized: Iterable<string>): void {
    for (const a of normalized) this.set.add(a);
  }
}
