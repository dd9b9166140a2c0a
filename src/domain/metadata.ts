import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';
import { MalformedRequestError, ValidationError } from './errors';
import { unstorable } from './text';

/** Nesting of `metadata`: the object itself is level 1; deeper objects or arrays are refused (422 `metadata_too_deep`). */
export const METADATA_DEPTH_MAX = 32;
export const METADATA_MAX_BYTES = 16 * 1024;

/**
 * The merchant's `metadata` object, checked and serialized once (stored, then echoed verbatim).
 * Walked with an explicit stack, never by recursion: a body of a few KB can nest thousands of
 * levels, which once exhausted the stack (a 500). Refused, nothing stored:
 * - deeper than METADATA_DEPTH_MAX: 422 `metadata_too_deep`;
 * - a key or string with a lone surrogate: 422 `invalid_metadata` (it has no UTF-8 form);
 * - over METADATA_MAX_BYTES serialized: 422 `metadata_too_large`.
 * `bodyText`: the JSON body the metadata came in (REST): once the checks pass, the metadata's text
 * is taken from it with every number as written (exactMetadataText) and stored and echoed instead
 * of a serialization of `value`, so no number goes through a JS number.
 * Without it (a gRPC caller's metadata_json), a number a JS number cannot hold as written (beyond
 * ±1.8e308, or an integer beyond 2^53) is 422 `invalid_metadata` rather than changed.
 */
export function metadataJson(value: unknown, bodyText?: string): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MalformedRequestError('metadata must be a JSON object', 'metadata');
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 1, path: 'metadata' }];
  while (stack.length > 0) {
    const at = stack.pop()!;
    const v = at.value;
    if (typeof v === 'string') refuseText(v, at.path);
    else if (typeof v === 'number' && bodyText === undefined) refuseNumber(v, at.path);
    else if (typeof v === 'object' && v !== null) {
      if (at.depth > METADATA_DEPTH_MAX) {
        throw new ValidationError('metadata_too_deep', `metadata nests deeper than ${METADATA_DEPTH_MAX} levels`, 'metadata', { max_depth: METADATA_DEPTH_MAX });
      }
      const entries = Array.isArray(v) ? v.map((item, i) => [String(i), item] as const) : Object.entries(v);
      for (const [key, item] of entries) {
        if (!Array.isArray(v)) refuseText(key, `${at.path} key`);
        stack.push({ value: item, depth: at.depth + 1, path: at.path });
      }
    }
  }
  // Only now, depth checked: the lossless parser recurses.
  const text = (bodyText === undefined ? undefined : exactMetadataText(bodyText)) ?? JSON.stringify(value);
  if (Buffer.byteLength(text) > METADATA_MAX_BYTES) throw new ValidationError('metadata_too_large', `metadata is larger than ${METADATA_MAX_BYTES} bytes`, 'metadata');
  return text;
}

function refuseText(s: string, where: string): void {
  // NUL is stored exactly here (JSON text escapes it as \u0000); only a lone surrogate cannot be.
  const why = unstorable(s.replaceAll('\u0000', ''));
  if (why !== null) throw new ValidationError('invalid_metadata', `${where} ${why}`, 'metadata');
}

function refuseNumber(n: number, where: string): void {
  if (!Number.isFinite(n)) throw new ValidationError('invalid_metadata', `${where} holds a number beyond ±1.8e308`, 'metadata');
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) {
    throw new ValidationError('invalid_metadata', `${where} holds an integer beyond 2^53 (${Number.MAX_SAFE_INTEGER}); send it as a string`, 'metadata');
  }
}

/** Where requestBody leaves the text of a body that has `metadata` (a symbol: never a JSON key). */
export const BODY_TEXT = Symbol('body text');

/**
 * The `metadata` member of a JSON body as text with every number exactly as written (lossless-json
 * keeps numbers as their digits), or undefined when the body has none or it is not an object.
 * A key repeated inside it is refused (422 `invalid_metadata`): which of the two values counts
 * would depend on the parser.
 */
export function exactMetadataText(bodyText: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = parseLossless(bodyText);
  } catch (error) {
    throw new ValidationError('invalid_metadata', `the body cannot be read exactly: ${(error as Error).message}`, 'metadata');
  }
  const metadata = (parsed as Record<string, unknown> | null)?.metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return undefined;
  return stringifyLossless(metadata);
}
