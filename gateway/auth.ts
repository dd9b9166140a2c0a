import type { IncomingMessage } from 'node:http';
import { Metadata } from '@grpc/grpc-js';
import { HttpError } from './errors';

/**
 * The gateway holds no secrets and never verifies a signature: it checks only that both headers are
 * present and forwards them with the exact body bytes; the daemon verifies and answers UNAUTHENTICATED.
 */
export interface SignedHeaders {
  readonly apiKey: string;
  readonly signature: string;
  /** X-Service-Timestamp when sent: the daemon then verifies the timestamped scheme. */
  readonly timestamp?: string;
}

/** What a timestamped signature covers besides the body: the method and the request target (path and query) as received. */
export interface SignedTarget {
  readonly method: string;
  readonly path: string;
}

export const SIGNED_BODY_KEY = 'x-signed-body-bin';
/**
 * One HTTP/2 header field may not exceed 64 KiB after decoding (nghttp2 answers COMPRESSION_ERROR),
 * and base64 of a 64 KiB body does not fit. So the body is sent as consecutive values of
 * `x-signed-body-bin`, each at most this many bytes; the daemon concatenates all values in order
 * (`Buffer.concat(metadata.get('x-signed-body-bin'))`). An empty body is one empty value.
 */
export const SIGNED_BODY_CHUNK_BYTES = 16 * 1024;

// gRPC ASCII metadata values must be printable ASCII; anything else can never name a key.
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

export function requireSignedHeaders(req: IncomingMessage): SignedHeaders {
  const apiKey = req.headers['x-service-key'];
  const signature = req.headers['x-service-signature'];
  if (typeof apiKey !== 'string' || apiKey === '') {
    throw new HttpError(401, 'missing_api_key', 'X-Service-Key header is required');
  }
  if (typeof signature !== 'string' || signature === '') {
    throw new HttpError(401, 'missing_signature', 'X-Service-Signature header is required');
  }
  if (!PRINTABLE_ASCII.test(apiKey)) throw new HttpError(401, 'invalid_api_key', 'X-Service-Key is not valid');
  if (!PRINTABLE_ASCII.test(signature)) throw new HttpError(401, 'invalid_signature', 'X-Service-Signature is not valid');
  const timestamp = req.headers['x-service-timestamp'];
  if (timestamp === undefined) return { apiKey, signature };
  // Its value is the daemon's to judge (422 invalid_timestamp / stale_timestamp); only what metadata can carry passes.
  if (typeof timestamp !== 'string' || !PRINTABLE_ASCII.test(timestamp)) throw new HttpError(422, 'invalid_timestamp', 'X-Service-Timestamp must be Unix seconds');
  return { apiKey, signature, timestamp };
}

/** Metadata every call carries. */
export function baseMetadata(requestId: string): Metadata {
  const md = new Metadata();
  md.set('x-request-id', requestId);
  return md;
}

/** Metadata of a signed call: the key, the signature and the body bytes exactly as received. */
export function signedMetadata(headers: SignedHeaders, body: Buffer, requestId: string, target?: SignedTarget): Metadata {
  const md = baseMetadata(requestId);
  md.set('x-service-key', headers.apiKey);
  md.set('x-service-signature', headers.signature);
  if (headers.timestamp !== undefined) {
    md.set('x-service-timestamp', headers.timestamp);
    // Binary values: the request target is the client's bytes (it may hold non-ASCII), passed exactly.
    md.set('x-signed-method-bin', Buffer.from(target?.method ?? '', 'latin1'));
    md.set('x-signed-path-bin', Buffer.from(target?.path ?? '', 'latin1'));
  }
  if (body.length === 0) md.add(SIGNED_BODY_KEY, Buffer.alloc(0));
  for (let at = 0; at < body.length; at += SIGNED_BODY_CHUNK_BYTES) {
    md.add(SIGNED_BODY_KEY, Buffer.from(body.subarray(at, at + SIGNED_BODY_CHUNK_BYTES)));
  }
  return md;
}
