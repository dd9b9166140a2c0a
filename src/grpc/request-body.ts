import { MalformedRequestError } from '../domain/errors';
import { BODY_TEXT } from '../domain/metadata';
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
  let text: string;
  try {
    // Bytes that are not UTF-8 are refused, not turned into U+FFFD (two bodies would read as one).
    text = UTF8.decode(caller.signedBody);
    parsed = JSON.parse(text);
  } catch {
    throw new MalformedRequestError('the body is not valid JSON', undefined, 'malformed_json');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new MalformedRequestError('the body must be a JSON object', undefined, 'malformed_json');
  const body = parsed as Record<string | symbol, unknown>;
  // metadata is stored and echoed as sent, numbers included: its text is taken from the bytes.
  if (typeof body.metadata === 'object' && body.metadata !== null) body[BODY_TEXT] = text;
  return body as Record<string, unknown>;
}

/** Drop unset optional proto fields so they read as absent, like a missing JSON key. */
export function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}
