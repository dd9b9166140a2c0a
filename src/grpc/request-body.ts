import { MalformedRequestError } from '../domain/errors';
import type { MerchantCaller } from './auth';

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The REST-shaped body of a merchant call. For a signed call it is read from the signed bytes
 * only (so a replayed signature cannot carry other fields); for token calls from the message.
 */
export function requestBody(caller: MerchantCaller, fromMessage: () => Record<string, unknown>): Record<string, unknown> {
  if (caller.signedBody === null) return fromMessage();
  if (caller.signedBody.length === 0) return {};
  let parsed: unknown;
  try {
    // Bytes that are not UTF-8 are refused, not turned into U+FFFD (two bodies would read as one).
    parsed = JSON.parse(UTF8.decode(caller.signedBody));
  } catch {
    throw new MalformedRequestError('the body is not valid JSON', undefined, 'malformed_json');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new MalformedRequestError('the body must be a JSON object', undefined, 'malformed_json');
  return parsed as Record<string, unknown>;
}

/** Drop unset optional proto fields so they read as absent, like a missing JSON key. */
export function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}
