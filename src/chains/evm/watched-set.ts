import type { WatchedAddresses, WatchedSet } from '../types';

/** Bits of the bitmap over the addresses' last hex digits (2^24 bits = 2 MiB). */
const TAIL_BITS = 24;
const TAIL_DIGITS = TAIL_BITS / 4;
/** Where the address starts in an EVM log topic: '0x', then 24 zero digits, then its 40. */
const ADDRESS_START = 26;

/**
 * A key from the last 6 characters, letters folded to lower case, read with charCodeAt (no
 * allocation). For hex that is the low 24 bits of the address; for any other alphabet it is still
 * a deterministic function of the folded characters, so the bitmap stays a superset.
 */
function tailKey(address: string): number {
  let key = 0;
  for (let i = address.length - TAIL_DIGITS; i < address.length; i++) {
    const c = address.charCodeAt(i) | 0x20; // 'A'..'F' -> 'a'..'f'
    key = (key << 4) | ((c <= 0x39 ? c - 0x30 : c - 0x57) & 0xf);
  }
  return key >>> 0;
}

/** How the EVM log filters ask whether a recipient is watched; a miss, the usual case, allocates nothing. */
export interface EvmAddressMatcher {
  /** has(address.toLowerCase()) for a 0x-hex address in any letter case (e.g. EIP-55). */
  hasHex(address: string): boolean;
  /** has(wordAddress(word)) for a log topic: 0x and 32 bytes, the address in the low 20 bytes, any case. */
  hasAddressWord(word: string): boolean;
}

/**
 * The EVM family's watched set (EvmAdapter.newWatchedSet): an in-memory Set, O(1) per transfer,
 * plus a bitmap over the addresses' last hex digits that answers most misses from the log topic
 * itself, without building the address string.
 */
export class EvmWatchedSet implements WatchedSet, EvmAddressMatcher {
  private readonly set = new Set<string>();
  /** One bit per tail key present: a clear bit proves an address is not watched. */
  private readonly tails = new Uint32Array(1 << (TAIL_BITS - 5));

  has(normalized: string): boolean {
    return this.set.has(normalized);
  }

  hasHex(address: string): boolean {
    if (!this.tailMaybeWatched(address)) return false;
    return this.set.has(address.toLowerCase());
  }

  hasAddressWord(word: string): boolean {
    // The address is the word's tail: the bitmap is read on the word itself, so a miss allocates nothing.
    if (word.length >= ADDRESS_START + TAIL_DIGITS && !this.tailMaybeWatched(word)) return false;
    return this.set.has(`0x${word.slice(ADDRESS_START)}`.toLowerCase());
  }

  /** False proves that no watched address ends as `s` does (any letter case); a string shorter than the tail is always a maybe. */
  private tailMaybeWatched(s: string): boolean {
    if (s.length < TAIL_DIGITS) return true;
    const key = tailKey(s);
    return (this.tails[key >>> 5]! & (1 << (key & 31))) !== 0;
  }

  size(): number {
    return this.set.size;
  }
  values(): Iterable<string> {
    return this.set.values();
  }
  addAll(addresses: Iterable<string>): void {
    for (const a of addresses) {
      this.set.add(a);
      if (a.length >= TAIL_DIGITS) {
        const key = tailKey(a);
        this.tails[key >>> 5]! |= 1 << (key & 31);
      }
    }
  }
}

/**
 * The matcher of a watched set handed to the EVM adapter: the set itself when it is the family's
 * own (the watcher's, from newWatchedSet), else plain lookups of the lowercased address.
 */
export function evmMatcher(watched: WatchedAddresses): EvmAddressMatcher {
  if (watched instanceof EvmWatchedSet) return watched;
  return {
    hasHex: (address) => watched.has(address.toLowerCase()),
    hasAddressWord: (word) => watched.has(`0x${word.slice(ADDRESS_START)}`.toLowerCase()),
  };
}
