import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChannelCredentials } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { CheckoutView } from '../../src/grpc/generated/chainpay/v1/invoices';
import { baseMetadata } from '../auth';
import { HttpError, isServiceError, toHttpError } from '../errors';
import { RateLimiter, type RateLimitOptions } from '../rate-limit';
import { sendJson } from '../respond';
import { CheckoutAssets } from './assets';
import { readChooseRequest } from './choose-request';
import { CheckoutDaemon } from './daemon';
import { streamCheckoutEvents } from './events';
import { redirect, sendHtml, setSecurityHeaders } from './http';
import { toCheckoutModel } from './model';
import { renderCheckoutPage, renderMessagePage } from './page';
import { buyerRefusal, stringsFor, type CheckoutStrings } from './strings';
import { checkoutUpdate } from './update';

/** Limits of the public checkout endpoints; every field has a default. */
export interface CheckoutTuning {
  /** Network choices per client address; default 10 per minute (burst 10). */
  readonly chooseRateLimit?: RateLimitOptions;
  /**
   * Network changes per invoice, whoever asks; default 5 per 10 minutes (burst 5). Each change
   * takes a deposit address that stays reserved for the late-payment window, so a buyer (or a
   * script) flipping networks must not drain the pool. Refused choices do not count.
   */
  readonly choosePerInvoiceLimit?: RateLimitOptions;
  /** Open event streams per client address; default 8. */
  readonly maxStreamsPerClient?: number;
  /** An event stream is ended after this long and the browser reconnects; default 10 min. */
  readonly streamMaxMs?: number;
  readonly heartbeatMs?: number;
  readonly retryMs?: number;
  /** The client a request counts against; default the peer address (TRUSTED_PROXY: see client-key.ts). */
  readonly clientKey?: (req: IncomingMessage) => string;
}

export interface CheckoutOptions extends CheckoutTuning {
  readonly grpcAddress: string;
  readonly credentials?: ChannelCredentials;
  readonly deadlineMs?: number;
  readonly logger: Logger;
}

export interface Checkout {
  /** Answers every request under `/pay` (see isCheckoutPath). JSON errors are thrown as HttpError. */
  handle(req: IncomingMessage, res: ServerResponse, pathname: string, requestId: string): Promise<void>;
  /** Refuses new event streams and ends the open ones (browsers reconnect elsewhere). */
  endStreams(): void;
  /** Closes the gRPC client: the last step of shutdown. */
  close(): void;
}

export function isCheckoutPath(pathname: string): boolean {
  return pathname === '/pay' || pathname.startsWith('/pay/');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DEFAULT_CHOOSE_LIMIT: RateLimitOptions = { ratePerSecond: 10 / 60, burst: 10 };
const DEFAULT_PER_INVOICE_LIMIT: RateLimitOptions = { ratePerSecond: 5 / 600, burst: 5 };

export function createCheckout(opts: CheckoutOptions): Checkout {
  const daemon = new CheckoutDaemon(opts.grpcAddress, { credentials: opts.credentials, deadlineMs: opts.deadlineMs });
  const assets = new CheckoutAssets();
  const chooseLimiter = new RateLimiter(opts.chooseRateLimit ?? DEFAULT_CHOOSE_LIMIT);
  const perInvoiceLimiter = new RateLimiter(opts.choosePerInvoiceLimit ?? DEFAULT_PER_INVOICE_LIMIT);
  const clientKey = opts.clientKey ?? ((req: IncomingMessage) => req.socket.remoteAddress ?? 'unknown');
  const maxStreams = opts.maxStreamsPerClient ?? 8;
  const streamsPerClient = new Map<string, number>();
  const openStreams = new Set<ServerResponse>();
  let closed = false;

  async function handle(req: IncomingMessage, res: ServerResponse, pathname: string, requestId: string): Promise<void> {
    // Every answer under /pay carries them, also the JSON errors the gateway's handler writes.
    setSecurityHeaders(res);
    const method = req.method ?? 'GET';
    const s = stringsFor(req.headers['accept-language'], languageParam(req.url));
    const [, , id = '', action, ...rest] = pathname.split('/');
    const notFoundPage = () => sendHtml(res, 404, renderMessagePage(s, assets.urls(), { title: s.notFoundTitle, body: s.notFoundBody }));

    if (id === 'assets' && action !== undefined && rest.length === 0) {
      allow(method, ['GET', 'HEAD']);
      if (!assets.serve(action, req, res)) notFoundPage();
      return;
    }
    const uuid = UUID.test(id) ? id.toLowerCase() : undefined;
    if (action === undefined) {
      allow(method, ['GET', 'HEAD']);
      return uuid ? page(res, uuid, requestId, s) : notFoundPage();
    }
    if (rest.length === 0 && action === 'events') {
      allow(method, ['GET']);
      return events(req, res, requireUuid(uuid), requestId, s);
    }
    if (rest.length === 0 && action === 'network') {
      allow(method, ['POST']);
      return choose(req, res, uuid, requestId, s);
    }
    notFoundPage();
  }

  async function page(res: ServerResponse, uuid: string, requestId: string, s: CheckoutStrings): Promise<void> {
    let view: CheckoutView;
    try {
      view = await daemon.get(uuid, baseMetadata(requestId));
    } catch (err) {
      return errorPage(res, err, requestId, s);
    }
    sendHtml(res, 200, renderCheckoutPage(toCheckoutModel(view), s, assets.urls()));
  }

  async function events(req: IncomingMessage, res: ServerResponse, uuid: string, requestId: string, s: CheckoutStrings): Promise<void> {
    if (closed) throw new HttpError(503, 'service_unavailable', 'shutting down');
    const key = clientKey(req);
    const open = streamsPerClient.get(key) ?? 0;
    if (open >= maxStreams) throw new HttpError(429, 'rate_limited', 'too many open event streams', undefined, { 'Retry-After': '10' });
    streamsPerClient.set(key, open + 1);
    openStreams.add(res);
    try {
      await streamCheckoutEvents(req, res, {
        daemon,
        uuid,
        metadata: baseMetadata(requestId),
        logger: opts.logger.child({ request_id: requestId }),
        render: (view) => checkoutUpdate(toCheckoutModel(view), s, assets.urls().logos),
        heartbeatMs: opts.heartbeatMs ?? 15_000,
        maxMs: opts.streamMaxMs ?? 10 * 60_000,
        retryMs: opts.retryMs ?? 3_000,
      });
    } finally {
      openStreams.delete(res);
      const left = (streamsPerClient.get(key) ?? 1) - 1;
      if (left > 0) streamsPerClient.set(key, left);
      else streamsPerClient.delete(key);
    }
  }

  async function choose(req: IncomingMessage, res: ServerResponse, uuid: string | undefined, requestId: string, s: CheckoutStrings): Promise<void> {
    const form = (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
    try {
      const decision = chooseLimiter.take(clientKey(req));
      if (!decision.allowed) {
        throw new HttpError(429, 'rate_limited', 'too many requests', undefined, { 'Retry-After': String(decision.retryAfterSeconds) });
      }
      const body = await readChooseRequest(req);
      const invoice = requireUuid(uuid);
      const perInvoice = perInvoiceLimiter.take(invoice);
      if (!perInvoice.allowed) {
        throw new HttpError(429, 'too_many_network_changes', 'too many network changes for this invoice', 'network', { 'Retry-After': String(perInvoice.retryAfterSeconds) });
      }
      let view: CheckoutView;
      try {
        view = await daemon.choose(invoice, body.network, baseMetadata(requestId));
      } catch (err) {
        perInvoiceLimiter.refund(invoice); // nothing changed: only changes count
        throw err;
      }
      if (body.form) return redirect(res, `/pay/${uuid}?lang=${s.lang}`);
      sendJson(res, 200, checkoutUpdate(toCheckoutModel(view), s, assets.urls().logos));
    } catch (err) {
      if (!form) throw forBuyer(err, s);
      return errorPage(res, err, requestId, s, uuid);
    }
  }

  /** A refusal as the buyer reads it: same status, code and field, the message in their language. */
  function forBuyer(err: unknown, s: CheckoutStrings): unknown {
    const e = toHttpError(err);
    return e.status < 500 ? new HttpError(e.status, e.code, buyerRefusal(s, e.code), e.field, e.headers) : err;
  }

  /** The HTML answer to a refusal: 404 page, or the error page naming the request id. */
  function errorPage(res: ServerResponse, err: unknown, requestId: string, s: CheckoutStrings, back?: string): void {
    const e = toHttpError(err);
    if (e.status === 500) opts.logger.error({ request_id: requestId, err, grpc: isServiceError(err) ? { code: err.code, details: err.details } : undefined }, 'checkout page failed');
    const urls = assets.urls();
    if (e.status === 404) return sendHtml(res, 404, renderMessagePage(s, urls, { title: s.notFoundTitle, body: s.notFoundBody }));
    const body = e.status < 500 ? buyerRefusal(s, e.code) : s.errorBody;
    const backTo = back !== undefined && e.status < 500 ? `/pay/${back}?lang=${s.lang}` : undefined;
    sendHtml(res, e.status, renderMessagePage(s, urls, { title: s.errorTitle, body, requestId, back: backTo }), e.headers);
  }

  return {
    handle,
    endStreams: () => {
      closed = true;
      for (const res of openStreams) res.end();
    },
    close: () => daemon.close(),
  };
}

/** The switcher's `?lang=` (page, event stream, form post); unknown values are ignored by stringsFor. */
function languageParam(url: string | undefined): string | null {
  const query = (url ?? '').split('?')[1];
  return query === undefined ? null : new URLSearchParams(query).get('lang');
}

function allow(method: string, allowed: readonly string[]): void {
  if (!allowed.includes(method)) {
    throw new HttpError(405, 'method_not_allowed', `method ${method} is not allowed here`, undefined, { Allow: allowed.join(', ') });
  }
}

function requireUuid(uuid: string | undefined): string {
  // The daemon's code for an unknown invoice: a malformed uuid is just as unknown.
  if (uuid === undefined) throw new HttpError(404, 'invoice_not_found', 'invoice not found');
  return uuid;
}
