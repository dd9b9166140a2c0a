import https from 'node:https';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { checkAddress, parseTargetUrl, pinnedLookup, resolveTarget, TargetRefusedError, type Resolver } from './address-guard';

export interface SendOptions {
  /** Lifts the address guard (WEBHOOK_ALLOW_PRIVATE_TARGETS=1, local testing only). */
  readonly allowPrivate: boolean;
  /** Status line must arrive within this time (15 s). */
  readonly timeoutMs: number;
  /** Trusted CAs instead of Node's defaults (tests). Production: NODE_EXTRA_CA_CERTS. */
  readonly ca?: string | Buffer;
  readonly resolver?: Resolver;
  /** Aborting rejects the send (shutdown): the attempt is not recorded. */
  readonly signal?: AbortSignal;
}

export interface SendResult {
  readonly ok: boolean;
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  /** Retrying cannot help (not an https URL): the event fails at once. */
  readonly permanent: boolean;
}

export class SendAbortedError extends Error {
  override readonly name = 'SendAbortedError';
}

/**
 * One POST of a webhook body. 2xx = delivered; anything else (3xx included: redirects are never
 * followed) is a failed attempt with the reason in `error`. Only the checked addresses are
 * connected to, and the connected peer is checked once more before TLS starts.
 */
export async function sendWebhook(target: string, headers: Record<string, string>, body: Buffer, options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const fail = (error: string, statusCode: number | null = null, permanent = false): SendResult => ({ ok: false, statusCode, latencyMs: elapsed(), error, permanent });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  try {
    const url = parseTargetUrl(target);
    const addresses = await withSignal(resolveTarget(url, options), signal);
    const statusCode = await post(url, headers, body, { ...options, signal, lookup: pinnedLookup(addresses) });
    if (statusCode >= 200 && statusCode < 300) return { ok: true, statusCode, latencyMs: elapsed(), error: null, permanent: false };
    if (statusCode >= 300 && statusCode < 400) return fail(`redirect not followed (HTTP ${statusCode})`, statusCode);
    return fail(`HTTP ${statusCode}`, statusCode);
  } catch (err) {
    if (options.signal?.aborted) throw new SendAbortedError('delivery aborted (shutting down)');
    if (deadline.signal.aborted) return fail(`timed out after ${options.timeoutMs} ms`);
    if (err instanceof TargetRefusedError) return fail(err.message, null, err.permanent);
    const e = err as NodeJS.ErrnoException;
    return fail(e.code && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : e.message);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `p`, or a rejection as soon as `signal` aborts. `p` is always handled, also when the signal had
 * aborted already (shutdown while a lookup was being started): its later rejection must not
 * become an unhandled rejection, which would crash the process.
 */
function withSignal<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(new Error('aborted'));
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * One TLS context per trust store, made once: without it every attempt built a context of its own
 * (loading the CA certificates each time), ~0.6 ms of CPU per attempt (measured).
 */
const secureContexts = new Map<string | Buffer | undefined, SecureContext>();
function secureContextFor(ca: string | Buffer | undefined): SecureContext {
  let context = secureContexts.get(ca);
  if (!context) secureContexts.set(ca, (context = createSecureContext(ca === undefined ? {} : { ca })));
  return context;
}

function post(url: URL, headers: Record<string, string>, body: Buffer, o: SendOptions & { signal: AbortSignal; lookup: ReturnType<typeof pinnedLookup> }): Promise<number> {
  return new Promise((resolve, reject) => {
    // secureContext is passed through to tls.connect (https.RequestOptions does not declare it).
    const options: https.RequestOptions & { secureContext: SecureContext } = {
      protocol: 'https:',
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || 443,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { ...headers, 'content-length': String(body.length), 'user-agent': 'chainpay-webhooks/1' },
      lookup: o.lookup as never,
      agent: false,
      secureContext: secureContextFor(o.ca),
      signal: o.signal,
    };
    const req = https.request(options);
    req.once('socket', (socket: Socket) => {
      // Belt and braces: whatever path led here, the peer actually connected to must pass the guard.
      socket.once('connect', () => {
        try {
          checkAddress(socket.remoteAddress ?? '', o.allowPrivate);
        } catch (err) {
          req.destroy(err as Error);
        }
      });
    });
    req.once('response', (res) => {
      res.on('error', () => undefined);
      resolve(res.statusCode ?? 0);
      // Only the status matters; do not read an arbitrary body.
      res.destroy();
    });
    req.on('error', reject);
    req.end(body);
  });
}
