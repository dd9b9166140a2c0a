import { createHash, randomBytes } from 'node:crypto';
import type { ChainFamily } from '../../domain/networks';

/**
 * Devnet hashes in each family's usual shape, so logs, URLs and column widths see real-looking
 * values: EVM 0x + 64 hex; TRON and TON 64 hex; SOLANA base58 (64-byte signatures, 32-byte blockhashes).
 */

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Bitcoin-alphabet base58 (as Solana uses); leading zero bytes become '1'. */
export function base58(bytes: Uint8Array): string {
  let n = bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
}

function shape(family: ChainFamily, bytes: Buffer): string {
  if (family === 'solana') return base58(bytes);
  const hex = bytes.subarray(0, 32).toString('hex');
  return family === 'evm' ? `0x${hex}` : hex;
}

/** A fresh transaction hash (64 random bytes for a Solana signature, 32 elsewhere). */
export function randomTxHash(family: ChainFamily): string {
  return shape(family, randomBytes(family === 'solana' ? 64 : 32));
}

/** A transaction hash fixed by `seed` (signed payouts: signing twice yields the same hash). */
export function deterministicTxHash(family: ChainFamily, seed: string): string {
  return shape(
    family,
    createHash(family === 'solana' ? 'sha512' : 'sha256')
      .update(seed)
      .digest(),
  );
}

export function randomBlockHash(family: ChainFamily): string {
  return shape(family, randomBytes(32));
}

/** Block hashes fixed by `seed` (genesis: the same on every start, so a wiped chain shares it). */
export function deterministicBlockHash(family: ChainFamily, seed: string): string {
  return shape(family, createHash('sha256').update(seed).digest());
}
