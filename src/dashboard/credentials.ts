import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { generateSecret, generateURI, verifySync } from 'otplib';
import { ValidationError } from '../domain/errors';

/**
 * The dashboard's secrets, each through a well-kept library: argon2id (@node-rs/argon2) for
 * passwords, RFC 6238 TOTP (otplib) for codes, node:crypto for random tokens and their SHA-256.
 */

/** OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane): ~20 ms here. */
const ARGON2 = { algorithm: 2 /* Algorithm.Argon2id */, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
export const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 256;
const TOTP_PERIOD_S = 30;

export async function hashPassword(password: string): Promise<string> {
  if (password.length < MIN_PASSWORD_LENGTH) throw new ValidationError('password_too_short', `the password must have at least ${MIN_PASSWORD_LENGTH} characters`, 'password');
  if (password.length > MAX_PASSWORD_LENGTH) throw new ValidationError('password_too_long', `the password must have at most ${MAX_PASSWORD_LENGTH} characters`, 'password');
  return hash(password, ARGON2);
}

/** A hash of a password nobody knows: an unknown email costs the same time as a known one. */
let decoy: Promise<string> | undefined;

export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (password.length === 0 || password.length > MAX_PASSWORD_LENGTH) return false;
  if (stored === null) {
    decoy ??= hash(randomBytes(24).toString('base64'), ARGON2);
    await verify(await decoy, password);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

export function newTotpSecret(): string {
  return generateSecret();
}

export function otpauthUrl(secret: string, email: string, issuer: string): string {
  return generateURI({ issuer, label: email, secret });
}

/**
 * The time step of `code` if it is valid now (one step of drift either way) and later than
 * `lastStep` (a code is used once); else null.
 */
export function acceptTotp(secret: string, code: string, lastStep: number | null, nowMs: number = Date.now()): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const epoch = Math.floor(nowMs / 1000);
  let result: { valid: boolean; timeStep?: number };
  try {
    result = verifySync({ secret, token, epoch, epochTolerance: TOTP_PERIOD_S }) as { valid: boolean; timeStep?: number };
  } catch {
    return null;
  }
  if (!result.valid || result.timeStep === undefined) return null;
  const step = result.timeStep;
  return lastStep !== null && step <= lastStep ? null : step;
}

/** 256 random bits, URL-safe: a session or setup token. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored for a token: its SHA-256 (hex). A token has 256 bits: no salt or stretching needed. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
