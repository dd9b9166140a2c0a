import { timingSafeEqual } from 'node:crypto';
import type { Metadata } from '@grpc/grpc-js';
import { UnauthenticatedError } from '../domain/errors';
import { verifyHmac } from '../security/hmac';

export interface SigningSecretSource {
  signingSecret(apiKey: string): Promise<{ merchantId: string; secret: string } | null>;
}

/** Who is calling a merchant-facing RPC, and (for signed calls) the exact body that was signed. */
export interface MerchantCaller {
  readonly merchantId: string | null;
  /** Raw signed REST body; null for token calls (fields come from the message). */
  /** null: the operator acting across merchants (no x-merchant-id given). */
  readonly signedBody: Buffer | null;
  readonly via: 'signature' | 'service_token' | 'operator';
}

function first(md: Metadata, key: string): string | undefined {
  const v = md.get(key)[0];
  return typeof v === 'string' ? v : v?.toString('utf8');
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

export class Authenticator {
  constructor(
    private readonly secrets: SigningSecretSource,
    private readonly tokens: { operator: string; service?: string },
  ) {}

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
      if (!verifyHmac(found.secret, body, signature)) throw new UnauthenticatedError('invalid_signature', 'signature does not match the body');
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

  /** A merchant-facing call that must name one merchant (creating things). */
  async merchantRequired(md: Metadata): Promise<MerchantCaller & { merchantId: string }> {
    const caller = await this.merchant(md);
    if (caller.merchantId === null) throw new UnauthenticatedError('missing_merchant_id', 'x-merchant-id metadata is required');
    return caller as MerchantCaller & { merchantId: string };
  }
}
