import { createHash } from 'node:crypto';
import { getAddress } from 'viem';
import { EvmWatchedSet } from './watched-set';

const hex = (seed: string) => `0x${createHash('sha256').update(seed).digest('hex').slice(0, 40)}`;

describe('EvmWatchedSet', () => {
  it('hasHex answers like has(lowercase) for watched, unwatched, checksummed and near-miss addresses', () => {
    const watched = Array.from({ length: 5000 }, (_, i) => hex(`watched ${i}`));
    const set = new EvmWatchedSet();
    set.addAll(watched);
    const probes = [
      ...watched.slice(0, 500),
      ...watched.slice(0, 500).map((a) => getAddress(a)), // EIP-55, mixed case
      ...watched.slice(0, 500).map((a) => a.toUpperCase().replace('0X', '0x')),
      ...Array.from({ length: 5000 }, (_, i) => getAddress(hex(`other ${i}`))),
      // Same last six digits as a watched address, different elsewhere: the bitmap says maybe, the set says no.
      ...watched.slice(0, 500).map((a) => `0x${'f'.repeat(34)}${a.slice(-6)}`),
    ];
    for (const p of probes) expect(set.hasHex(p)).toBe(set.has(p.toLowerCase()));
    expect(probes.filter((p) => set.hasHex(p))).toHaveLength(1500);
  });

  it('keeps other alphabets exact through has (the bitmap only narrows hasHex)', () => {
    const set = new EvmWatchedSet();
    set.addAll(['TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY2ndRqUqgfYh9p']);
    expect(set.has('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBe(true);
    expect(set.has('tr7nhqjekqxgtci8q8zy4pl8otszgjlj6t')).toBe(false);
    expect(set.size()).toBe(2);
  });
});

describe('EvmWatchedSet.hasAddressWord', () => {
  it('answers like has(lowercase address in the low 20 bytes) for log topics in any case', () => {
    const watched = Array.from({ length: 5000 }, (_, i) => hex(`watched ${i}`));
    const set = new EvmWatchedSet();
    set.addAll(watched);
    const word = (address: string, high = '0'.repeat(24)) => `0x${high}${address.slice(2)}`;
    const probes = [
      ...watched.slice(0, 500).map((a) => word(a)),
      ...watched.slice(0, 500).map((a) => word(getAddress(a))), // mixed case, as some nodes send
      ...watched.slice(0, 500).map((a) => word(a, 'ab'.repeat(12))), // upper bytes are not the address
      ...Array.from({ length: 5000 }, (_, i) => word(hex(`other ${i}`))),
      // Same last six digits as a watched address: the bitmap says maybe, the set says no.
      ...watched.slice(0, 500).map((a) => word(`0x${'f'.repeat(34)}${a.slice(-6)}`)),
    ];
    for (const p of probes) expect(set.hasAddressWord(p)).toBe(set.has(`0x${p.slice(26)}`.toLowerCase()));
    expect(probes.filter((p) => set.hasAddressWord(p))).toHaveLength(1500);
  });
});
