import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors';

/** Largest accepted request body (DESIGN: 413 above 64 KiB). */
export const MAX_BODY_BYTES = 64 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** POST bodies must be `application/json`; a charset parameter is allowed but must be UTF-8 (RFC 8259). */
export function requireJsonContentType(req: IncomingMessage): void {
  const header = req.headers['content-type'];
  const [type = '', ...params] = (header ?? '').split(';').map((p) => p.trim().toLowerCase());
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/^"(.*)"$/, '$1');
  if (type !== 'application/json' || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
    throw new HttpError(415, 'unsupported_media_type', 'Content-Type must be application/json');
  }
}

/**
 * Reads the raw body, byte for byte (it is what the merchant signed). Refuses with 413 as soon as
 * the declared length or the bytes read pass `limit`, and stops reading: nothing unbounded is buffered.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => new BodyReader(req, limit, resolve, reject));
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, 'payload_too_large', `request body exceeds ${limit} bytes`);
}

/**
 * One body being read. A class with bound methods rather than four named closures per request:
 * under tsx (esbuild keepNames) each named closure costs an Object.defineProperty on every request.
 */
class BodyReader {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly req: IncomingMessage,
    private readonly limit: number,
    private readonly resolve: (body: Buffer) => void,
    private readonly reject: (err: Error) => void,
  ) {
    this.onData = this.onData.bind(this);
    this.onEnd = this.onEnd.bind(this);
    this.onError = this.onError.bind(this);
    req.on('data', this.onData);
    req.on('end', this.onEnd);
    req.on('error', this.onError);
  }

  private onData(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.limit) {
      this.cleanup();
      this.req.pause();
      this.reject(tooLarge(this.limit));
      return;
    }
    this.chunks.push(chunk);
  }

  private onEnd(): void {
    this.cleanup();
    this.resolve(Buffer.concat(this.chunks, this.size));
  }

  private onError(err: Error): void {
    this.cleanup();
    this.reject(err);
  }

  private cleanup(): void {
    this.req.off('data', this.onData);
    this.req.off('end', this.onEnd);
    this.req.off('error', this.onError);
  }
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

/** A required body: `application/json`, at most MAX_BODY_BYTES, one JSON object (415, 413, 400 in that order). */
export async function readJsonBody(req: IncomingMessage): Promise<Buffer> {
  requireJsonContentType(req);
  const body = await readBody(req);
  assertJsonObject(body);
  return body;
}

/**
 * An optional body: none at all (no bytes) is accepted with or without a Content-Type, and reads as
 * `{}` at the daemon (src/grpc/request-body.ts); bytes must be an `application/json` object as above.
 * Without a Content-Type, a chunked body is judged once read (only then is its length known).
 */
export async function readOptionalJsonBody(req: IncomingMessage): Promise<Buffer> {
  const hasType = req.headers['content-type'] !== undefined;
  // A declared length says at once that bytes come: 415 before reading them, as for a required body.
  if (hasType || Number(req.headers['content-length']) > 0) requireJsonContentType(req);
  const body = await readBody(req);
  if (body.length === 0) return body;
  if (!hasType) requireJsonContentType(req);
  assertJsonObject(body);
  return body;
}
