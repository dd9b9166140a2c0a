import type { WatchedAddresses } from '../../chains/types';

/** The addresses a watcher matches transfers against: an in-memory Set, O(1) per transfer. */
export class WatchedSet implements WatchedAddresses {
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
  addAll(addresses: Iterable<string>): void {
    for (const a of addresses) this.set.add(a);
  }
}
