import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { HttpError } from './errors';

/**
 * A request Node's HTTP parser could not read (bad request line, bad header, oversized headers,
 * a request that timed out) is answered with the usual JSON error body, as every other refusal,
 * instead of Node's bare `400 Bad Request` (issue 37). The connection is closed after it: what
 * follows on it cannot be framed.
 */
export function answerClientError(err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket, logger: Logger): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const refusal = refusalOf(err.code);
  const requestId = randomUUID();
  logger.debug({ request_id: requestId, code: err.code, reason: err.message }, 'malformed HTTP request');
  const body = Buffer.from(JSON.stringify(refusal.body(requestId)), 'utf8');
  const head = [
    `HTTP/1.1 ${refusal.status} ${REASONS[refusal.status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${body.length}`,
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    `X-Request-Id: ${requestId}`,
    'Connection: close',
  ];
  socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]));
}

const REASONS: Readonly<Record<number, string>> = { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Payload Too Large', 431: 'Request Header Fields Too Large' };

function refusalOf(code: string | undefined): HttpError {
  if (code === 'HPE_HEADER_OVERFLOW') return new HttpError(431, 'headers_too_large', 'the request headers are too large');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new HttpError(408, 'request_timeout', 'the request was not received in time');
  return new HttpError(400, 'malformed_request', 'the HTTP request could not be parsed');
}
