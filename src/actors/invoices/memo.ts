import { randomInt } from 'node:crypto';

/** Easy to type, no look-alikes (0/O, 1/I/L). 10 characters ≈ 49 bits: collisions are refused by a unique key anyway. */
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

export function newMemo(): string {
  let memo = '';
  for (let i = 0; i < 10; i++) memo += ALPHABET[randomInt(ALPHABET.length)];
  return memo;
}
