import type { WatchedAddresses, WatchedSet } from '../types';
import { tronHex } from './codec';

/** How the block source asks whether a log's recipient is watched: by its 20 bytes in lowercase hex. */
export interface TronAddressMatcher {
  /** The watched base58 address of these 20 bytes (40 lowercase hex characters), or undefined. */
  byAccountHex(hex40: string): string | undefined;
}

/**
 * The TRON family's watched set (TronAdapter.newWatchedSet): the base58 addresses the watcher adds,
 * indexed by their 20-byte account id in hex, the form a Transfer log's topic carries. A log is
 * matched with one map lookup on a slice of the topic: no base58 encoding (two SHA-256) per log.
 */
export class TronWatchedSet implements WatchedSet, TronAddressMatcher {
  private readonly byHex = new Map<string, string>();
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
    for (const a of addresses) {
      if (this.set.has(a)) continue;
      this.set.add(a);
      this.byHex.set(tronHex(a).slice(2).toLowerCase(), a);
    }
  }
  byAccountHex(hex40: string): string | undefined {
    return this.byHex.get(hex40);
  }
}

/** The matcher of a set handed to watch(): the family's own set, or one built from any WatchedAddresses (tests). */
export function tronMatcher(watched: WatchedAddresses): TronAddressMatcher {
  if (watched instanceof TronWatchedSet) return watched;
  return {
    byAccountHex(hex40) {
      // Slow path for foreign sets: scans every value per log. The daemon always passes a TronWatchedSet.
      for (const a of watched.values()) if (tronHex(a).slice(2).toLowerCase() === hex40) return a;
      return undefined;
    },
  };
}
