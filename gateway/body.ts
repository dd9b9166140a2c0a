import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors';

/** Largest accepted request body (DESIGN: 413 above 64 KiB). */
export const MAX_BODY_BYTES = 64 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** POST bodies must be `application/json`; a charset parameter is allowed but must be UTF-8 (RFC 8259). */
export function requireJsonContentType(req: IncomingMessage): void {
  const header = req.headers['content-type'];
  const [type = '', ...params] = (header ?? '').split(';').map((p) => p.trim().toLowerCase());
  const charset = params.find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/^"(.*)"$/, '$1');
  if (type !== 'application/json' || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
    throw new HttpError(415, 'unsupported_media_type', 'Content-Type must be application/json');
  }
}

/**
 * Reads the raw body, byte for byte (it is what the merchant signed). Refuses with 413 as soon as
 * the declared length or the bytes read pass `limit`, and stops reading: nothing unbounded is buffered.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const tooLarge = () => new HttpError(413, 'payload_too_large', `request body exceeds ${limit} bytes`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** The body must be UTF-8 JSON whose top-level value is an object. Parsed only to check; the raw bytes are forwarded. */
export function assertJsonObject(raw: Buffer): void {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(raw));
  } catch {
    throw new HttpError(400, 'malformed_json', 'request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, 'malformed_json', 'request body must be a JSON object');
  }
}
