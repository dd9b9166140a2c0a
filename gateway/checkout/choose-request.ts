import type { IncomingMessage } from 'node:http';
import { readBody } from '../body';
import { HttpError } from '../errors';

/**
 * The body of `POST /pay/<uuid>/network`: JSON `{"network":"TON"}` from the page script, or the
 * form the page posts when scripts are off (`network=TON`, answered with a redirect). Only
 * `network` is read; the daemon validates it exactly as for SetInvoiceNetwork. A JSON body with
 * any other key is refused (422 `unknown_field`), as every JSON body of the merchant API is.
 */
export interface ChooseRequest {
  readonly network: string;
  readonly form: boolean;
}

/** The keys a JSON choice may carry. */
export const CHOOSE_FIELDS: readonly string[] = ['network'];

/** A network code is short; anything bigger is not a choice. */
export const MAX_CHOOSE_BODY_BYTES = 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export async function readChooseRequest(req: IncomingMessage): Promise<ChooseRequest> {
  const [type = ''] = (req.headers['content-type'] ?? '').split(';').map((p) => p.trim().toLowerCase());
  const form = type === 'application/x-www-form-urlencoded';
  if (type !== 'application/json' && !form) {
    throw new HttpError(415, 'unsupported_media_type', 'Content-Type must be application/json');
  }
  const raw = await readBody(req, MAX_CHOOSE_BODY_BYTES);
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new HttpError(400, 'malformed_json', 'request body is not valid UTF-8');
  }
  if (form) return { network: new URLSearchParams(text).get('network') ?? '', form };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'malformed_json', 'request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, 'malformed_json', 'request body must be a JSON object');
  }
  const unknown = Object.keys(value).find((k) => !CHOOSE_FIELDS.includes(k));
  if (unknown !== undefined) throw new HttpError(422, 'unknown_field', `unknown field ${JSON.stringify(unknown.slice(0, 64))}; this body accepts ${CHOOSE_FIELDS.join(', ')}`, unknown.slice(0, 200));
  const network = (value as Record<string, unknown>).network;
  if (network === undefined || network === null) return { network: '', form }; // the daemon answers missing_field
  if (typeof network !== 'string') throw new HttpError(400, 'invalid_body', 'network must be a string', 'network');
  return { network, form };
}
