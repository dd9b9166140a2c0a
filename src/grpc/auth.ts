import { timingSafeEqual } from 'node:crypto';
import type { Metadata } from '@grpc/grpc-js';
import { UnauthenticatedError, ValidationError } from '../domain/errors';
import { verifyHmac } from '../security/hmac';
import { isFreshTimestamp, isTimestampText, TIMESTAMP_TOLERANCE_S, verifyTimestamped, type SigningSecret } from '../security/signed-request';

export interface SigningSecretSource {
  signingSecret(apiKey: string): Promise<SigningSecret | null>;
}

/** Who is calling a merchant-facing RPC, and (for signed calls) the exact body that was signed. */
export interface MerchantCaller {
  readonly merchantId: string | null;
  /** Raw signed REST body; null for token calls (fields come from the message). */
  /** null: the operator acting across merchants (no x-merchant-id given). */
  readonly signedBody: Buffer | null;
  readonly via: 'signature' | 'service_token' | 'operator' | 'dashboard';
}

/** Resolves a dashboard session token (the `x-dashboard-session` metadata) to its user's merchant. */
export interface DashboardSessionSource {
  resolve(token: string | undefined): Promise<{ readonly user: { readonly merchantId: string } }>;
}

/** A caller that sees one merchant only, whatever the message names: a signed call or a dashboard session. */
export function scopedToOwnMerchant(caller: MerchantCaller): boolean {
  return caller.via === 'signature' || caller.via === 'dashboard';
}

function first(md: Metadata, key: string): string | undefined {
  const v = md.get(key)[0];
  return typeof v === 'string' ? v : v?.toString('utf8');
}

/** A binary metadata value as its bytes (empty when absent). */
function firstBytes(md: Metadata, key: string): Buffer {
  const v = md.get(key)[0];
  return v === undefined ? Buffer.alloc(0) : Buffer.isBuffer(v) ? v : Buffer.from(v);
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function bearer(md: Metadata): string | undefined {
  const h = first(md, 'authorization');
  return h?.startsWith('Bearer ') ? h.slice(7).trim() : undefined;
}

/**
 * The spec's rule (HMAC of the body) without X-Service-Timestamp; with it, the HMAC of
 * `timestamp.method.path.body` (method and path as the gateway received them: `x-signed-method-bin`,
 * `x-signed-path-bin`), and the timestamp must be within ±300 s of the wall clock (422 stale_timestamp,
 * checked after the signature so only the key holder learns it). A merchant that requires
 * timestamps refuses calls without one.
 */
function verifySignature(found: SigningSecret, md: Metadata, body: Buffer, signature: string, nowMs = Date.now()): void {
  const timestamp = first(md, 'x-service-timestamp');
  if (timestamp === undefined) {
    if (found.requireTimestamp) throw new UnauthenticatedError('missing_timestamp', 'X-Service-Timestamp header is required for this API key');
    if (!verifyHmac(found.secret, body, signature)) throw new UnauthenticatedError('invalid_signature', 'signature does not match the body');
    return;
  }
  if (!isTimestampText(timestamp)) throw new ValidationError('invalid_timestamp', 'X-Service-Timestamp must be Unix seconds (digits only)');
  const parts = { timestamp, method: firstBytes(md, 'x-signed-method-bin'), path: firstBytes(md, 'x-signed-path-bin'), body };
  if (!verifyTimestamped(found.secret, parts, signature)) throw new UnauthenticatedError('invalid_signature', 'signature does not match timestamp.method.path.body');
  if (!isFreshTimestamp(timestamp, nowMs)) {
    throw new ValidationError('stale_timestamp', `X-Service-Timestamp is more than ${TIMESTAMP_TOLERANCE_S} s from the server clock (server time ${Math.floor(nowMs / 1000)})`, undefined, {
      server_time: Math.floor(nowMs / 1000),
    });
  }
}

export class Authenticator {
  constructor(
    private readonly secrets: SigningSecretSource,
    private readonly tokens: { operator: string; service?: string },
    private readonly dashboard?: DashboardSessionSource,
  ) {}

  /**
   * A merchant-facing READ: also answers a dashboard session (its user's merchant only). Writes use
   * merchant(), which never accepts a session: a dashboard action that moves money gets its own
   * call with role and step-up checks.
   */
  async merchantReader(md: Metadata): Promise<MerchantCaller> {
    const session = md.get('x-dashboard-session')[0];
    if (session === undefined) return this.merchant(md);
    if (!this.dashboard) throw new UnauthenticatedError('session_ended', 'not signed in, or the session ended');
    const found = await this.dashboard.resolve(typeof session === 'string' ? session : session.toString('utf8'));
    return { merchantId: found.user.merchantId, signedBody: null, via: 'dashboard' };
  }

  operator(md: Metadata): string {
    const token = bearer(md);
    if (!token) throw new UnauthenticatedError('missing_operator_token', 'operator token required');
    if (!safeEqual(token, this.tokens.operator)) throw new UnauthenticatedError('invalid_operator_token', 'invalid operator token');
    return 'operator';
  }

  async merchant(md: Metadata): Promise<MerchantCaller> {
    const apiKey = first(md, 'x-service-key');
    const signature = first(md, 'x-service-signature');
    if (apiKey !== undefined || signature !== undefined) {
      if (!apiKey) throw new UnauthenticatedError('missing_api_key', 'X-Service-Key header is required');
      if (!signature) throw new UnauthenticatedError('missing_signature', 'X-Service-Signature header is required');
      // The gateway splits the body over several values (one HTTP/2 header field is limited).
      const body = Buffer.concat(md.get('x-signed-body-bin').map((v) => (Buffer.isBuffer(v) ? v : Buffer.from(v))));
      const found = await this.secrets.signingSecret(apiKey);
      if (!found) throw new UnauthenticatedError('invalid_api_key', 'unknown API key');
      verifySignature(found, md, body, signature);
      return { merchantId: found.merchantId, signedBody: body, via: 'signature' };
    }
    const token = bearer(md);
    // A merchant id is a uuid: one spelling (PostgreSQL's text form, lower case) from here on, so an
    // id sent in upper case names the same invoices, balance and ledger accounts as the stored one.
    const merchantId = first(md, 'x-merchant-id')?.toLowerCase();
    if (token && this.tokens.service && safeEqual(token, this.tokens.service)) {
      if (!merchantId) throw new UnauthenticatedError('missing_merchant_id', 'x-merchant-id metadata is required with a service token');
      return { merchantId, signedBody: null, via: 'service_token' };
    }
    if (token && safeEqual(token, this.tokens.operator)) {
      return { merchantId: merchantId ?? null, signedBody: null, via: 'operator' };
    }
    throw new UnauthenticatedError('missing_credentials', 'a signed request or a service token is required');
  }

  /** merchantReader for a read that must name one merchant (a page of a list). */
  async merchantReaderRequired(md: Metadata): Promise<MerchantCaller & { merchantId: string }> {
    return this.#named(await this.merchantReader(md));
  }

  /** A merchant-facing call that must name one merchant (creating things). */
  async merchantRequired(md: Metadata): Promise<MerchantCaller & { merchantId: string }> {
    return this.#named(await this.merchant(md));
  }

  #named(caller: MerchantCaller): MerchantCaller & { merchantId: string } {
    if (caller.merchantId === null) throw new UnauthenticatedError('missing_merchant_id', 'x-merchant-id metadata is required');
    return caller as MerchantCaller & { merchantId: string };
  }
}
