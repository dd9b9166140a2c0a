import type { ServerResponse } from 'node:http';
import type { HttpError } from './errors';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A JSON body encoded already (gateway/invoice-bodies.ts): sent as it is. */
export class JsonBytes {
  constructor(readonly bytes: Buffer) {}
}

/** Writes one complete JSON response. `close` asks Node to end the connection after it (413, shutdown). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}, close = false): void {
  if (res.headersSent) return;
  const text = body instanceof JsonBytes ? body.bytes : Buffer.from(JSON.stringify(body), 'utf8');
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', text.length);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (close) res.setHeader('Connection', 'close');
  res.end(text);
}

export function sendError(res: ServerResponse, err: HttpError, requestId: string, close = false): void {
  sendJson(res, err.status, err.body(requestId), err.headers, close);
}
