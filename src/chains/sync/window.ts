import type { BlockRef } from '../types';

/**
 * The block hashes the follower knows between the last final block (the lowest entry, the
 * anchor) and its tip. It may be sparse while catching up (only range ends are fetched), which
 * only makes a walk-back stop at a lower, still correct, common ancestor. Immutable: a step
 * builds the next window and commits it only after the sink accepted every observation.
 */
export class BlockWindow {
  private readonly hashes: ReadonlyMap<number, string>;

  constructor(entries: Iterable<BlockRef> = []) {
    const map = new Map<number, string>();
    for (const e of entries) map.set(e.height, e.hash);
    this.hashes = map;
  }

  get size(): number {
    return this.hashes.size;
  }

  hashAt(height: number): string | undefined {
    return this.hashes.get(height);
  }

  with(blocks: Iterable<BlockRef>): BlockWindow {
    return new BlockWindow([...this.entries(), ...blocks]);
  }

  /** Keeps heights in [low, high]. */
  slice(low: number, high: number): BlockWindow {
    return new BlockWindow(this.entries().filter((e) => e.height >= low && e.height <= high));
  }

  highestAtOrBelow(height: number): BlockRef | null {
    return this.descendingFrom(height)[0] ?? null;
  }

  lowest(): BlockRef | null {
    const all = this.entries();
    return all.length === 0 ? null : all[0]!;
  }

  /** Known blocks at or below `height`, highest first. */
  descendingFrom(height: number): BlockRef[] {
    return this.entries()
      .filter((e) => e.height <= height)
      .reverse();
  }

  private entries(): BlockRef[] {
    return [...this.hashes].map(([height, hash]) => ({ height, hash })).sort((a, b) => a.height - b.height);
  }
}
