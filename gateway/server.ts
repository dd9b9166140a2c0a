import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ChannelCredentials, Metadata } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { createGatewayLogger } from './logger';
import { baseMetadata, requireSignedHeaders, signedMetadata } from './auth';
import { readJsonBody, readOptionalJsonBody } from './body';
import { CallCancellation } from './call-cancellation';
import { DaemonClient } from './daemon-client';
import { HttpError, isServiceError, toHttpError } from './errors';
import { HealthCheck } from './health';
import { RateLimiter, type RateLimitOptions } from './rate-limit';
import type { ClientKey } from './client-key';
import { sendError, sendJson } from './respond';
import { answerClientError } from './client-error';
import { matchRoute, type RouteSpec } from './routes';
import { createCheckout, isCheckoutPath, type CheckoutTuning } from './checkout';
import { createDashboard, isDashboardPath } from './dashboard';

export interface GatewayOptions {
  /** host:port of the daemon's gRPC server. */
  readonly grpcAddress: string;
  /** Public base URL of this gateway (checkout links); default http://127.0.0.1:<listening port>. */
  readonly publicUrl?: string;
  readonly logger?: Logger;
  /** Per-client token bucket on `/v1`; off when absent. */
  readonly rateLimit?: RateLimitOptions;
  /** Deadline of each gRPC call; default 15 s. */
  readonly grpcDeadlineMs?: number;
  /** Default insecure (the daemon is on a private network). */
  readonly grpcCredentials?: ChannelCredentials;
  /** After close(), connections still open after this long are cut; default 10 s. */
  readonly shutdownGraceMs?: number;
  /** Limits of the public checkout endpoints (`/pay`); defaults in gateway/checkout/index.ts. */
  readonly checkout?: CheckoutTuning;
  /** The client a request counts against in every limiter (see client-key.ts); default the peer address. */
  readonly clientKey?: ClientKey;
}

export interface Gateway {
  readonly server: http.Server;
  /** Resolves with the port actually bound (useful with port 0). */
  listen(port: number, host?: string): Promise<number>;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), then closes the gRPC channel. */
  close(): Promise<void>;
  publicUrl(): string;
}

const READY_DEADLINE_MS = 2_000;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function createGateway(opts: GatewayOptions): Gateway {
  const logger = opts.logger ?? createGatewayLogger();
  // The request line carries only the request id, method, path, status and timing, never a
  // secret: it skips the logger's redaction pass, which cost ~4x the line itself (measured).
  const requestLog = logger.child({}, { redact: [] });
  const daemon = new DaemonClient(opts.grpcAddress, { credentials: opts.grpcCredentials, deadlineMs: opts.grpcDeadlineMs });
  const limiter = opts.rateLimit ? new RateLimiter({ key: opts.clientKey, ...opts.rateLimit }) : undefined;
  const checkout = createCheckout({ clientKey: opts.clientKey, ...opts.checkout, grpcAddress: opts.grpcAddress, credentials: opts.grpcCredentials, deadlineMs: opts.grpcDeadlineMs, logger });
  let closing: Promise<void> | undefined;
  let port = 0;
  const publicUrl = (): string => (opts.publicUrl ?? `http://127.0.0.1:${port}`).replace(/\/+$/, '');
  const dashboard = createDashboard({ grpcAddress: opts.grpcAddress, credentials: opts.grpcCredentials, deadlineMs: opts.grpcDeadlineMs, logger, publicUrl, clientKey: opts.clientKey });

  const server = http.createServer((req, res) => void handle(req, res));
  // Bodies are at most 64 KiB: a client that takes longer than this to send one is cut off.
  server.requestTimeout = 30_000;
  server.headersTimeout = 15_000;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => answerClientError(err, socket, logger));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    // A child logger only when something goes wrong (errorLog): the request line is logged with the
    // id as a field. No per-request named closure here: under tsx (esbuild keepNames) each one
    // costs an Object.defineProperty of its name on every request (~4% of a GET's CPU, profiled).
    const pathname = (req.url ?? '/').split('?', 1)[0]!;
    const started = process.hrtime.bigint();
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const level = pathname.startsWith('/v1/') ? 'info' : 'debug';
      requestLog[level]({ request_id: requestId, method: req.method, path: pathname, status: res.statusCode, ms }, 'http request');
    });
    try {
      await dispatch(req, res, pathname, requestId);
    } catch (err) {
      if ((res.destroyed || req.socket.destroyed) && !(err instanceof HttpError)) return errorLog(logger, requestId).debug({ err }, 'client went away');
      const httpError = toHttpError(err);
      if (httpError.status === 500) {
        errorLog(logger, requestId).error({ err, grpc: isServiceError(err) ? { code: err.code, details: err.details } : undefined }, 'internal error');
      } else if (isServiceError(err)) {
        errorLog(logger, requestId).info({ grpc_code: err.code, code: httpError.code }, 'daemon refused');
      }
      sendError(res, httpError, requestId, closing !== undefined || httpError.status === 413);
    }
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse, pathname: string, requestId: string): Promise<void> {
    const method = req.method ?? 'GET';
    if (pathname === '/healthz' || pathname === '/readyz') {
      if (method !== 'GET') throw methodNotAllowed(method, ['GET']);
      const [status, body] = pathname === '/healthz' ? ([200, { status: 'ok' }] as const) : await readiness(requestId);
      return sendJson(res, status, body, {}, closing !== undefined);
    }
    // ── CHECKOUT HOOK ──────────────────────────────────────────────────────────────────────────
    // The buyer's checkout page (`/pay/<uuid>`, its event stream, network choice and assets):
    // public, scoped to one invoice by CheckoutService; see gateway/checkout/index.ts.
    if (isCheckoutPath(pathname)) return checkout.handle(req, res, pathname, requestId);
    // The merchant dashboard (`/dashboard/…`): server-rendered, session-scoped; see gateway/dashboard/index.ts.
    if (isDashboardPath(pathname)) return dashboard.handle(req, res, pathname, requestId);
    // ───────────────────────────────────────────────────────────────────────────────────────────
    const match = matchRoute(method, pathname);
    if (match.kind === 'not_found') throw new HttpError(404, 'not_found', 'no such route');
    if (match.kind === 'method_not_allowed') throw methodNotAllowed(method, match.allow);
    if (limiter !== undefined) {
      const decision = limiter.take(limiter.keyOf(req));
      if (!decision.allowed) {
        throw new HttpError(429, 'rate_limited', 'too many requests', undefined, { 'Retry-After': String(decision.retryAfterSeconds) });
      }
    }
    const metadata = await callMetadata(req, method, match.spec, requestId);
    // A client that closes its connection before the answer cancels the daemon call ('close'
    // comes after every response; unfinished, it means the socket went first).
    const cancellation = new CallCancellation();
    res.once('close', () => {
      if (!res.writableFinished) cancellation.cancel();
    });
    const query = (req.url ?? '').includes('?') ? (req.url ?? '').slice((req.url ?? '').indexOf('?') + 1) : '';
    const result = await match.spec.handle({ params: match.params, daemon, metadata, cancellation, query });
    sendJson(res, result.status, result.body, {}, closing !== undefined);
  }

  /** Everything refusable is refused here, before any gRPC call: 401, then 415, 413, 400. */
  async function callMetadata(req: IncomingMessage, method: string, spec: RouteSpec, requestId: string): Promise<Metadata> {
    if (!spec.signed) return baseMetadata(requestId);
    const headers = requireSignedHeaders(req);
    let body: Buffer = Buffer.alloc(0); // A GET signs the empty string; a body sent with it is ignored.
    if (method === 'POST') {
      body = spec.body === 'optional' ? await readOptionalJsonBody(req) : await readJsonBody(req);
    }
    return signedMetadata(headers, body, requestId, { method, path: req.url ?? '' });
  }

  async function readiness(requestId: string): Promise<[number, unknown]> {
    if (closing !== undefined) return [503, { status: 'shutting_down' }];
    try {
      const status = await daemon.direct(HealthCheck, { service: '' }, baseMetadata(requestId), READY_DEADLINE_MS);
      return status === 'SERVING' ? [200, { status: 'ready' }] : [503, { status: 'not_ready', daemon: status }];
    } catch (err) {
      logger.warn({ request_id: requestId, err }, 'daemon health check failed');
      return [503, { status: 'not_ready', daemon: 'unreachable' }];
    }
  }

  return {
    server,
    listen: (listenPort, host = '127.0.0.1') =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(listenPort, host, () => {
          server.off('error', reject);
          port = (server.address() as AddressInfo).port;
          logger.info({ host, port, grpc: opts.grpcAddress }, 'gateway listening');
          resolve(port);
        });
      }),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        const cut = setTimeout(() => server.closeAllConnections(), opts.shutdownGraceMs ?? 10_000);
        // Event streams never finish on their own: end them now (browsers reconnect elsewhere).
        checkout.endStreams();
        // Node closes idle keep-alive sockets now; busy ones end after their response (Connection: close).
        server.close(() => {
          clearTimeout(cut);
          daemon.close();
          checkout.close();
          dashboard.close();
          resolve();
        });
      });
      return closing;
    },
    publicUrl,
  };
}

/** The logger of one request's error lines, with its id. */
function errorLog(logger: Logger, requestId: string): Logger {
  return logger.child({ request_id: requestId });
}

function methodNotAllowed(method: string, allow: readonly string[]): HttpError {
  return new HttpError(405, 'method_not_allowed', `method ${method} is not allowed here`, undefined, { Allow: allow.join(', ') });
}
