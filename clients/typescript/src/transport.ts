import { errorFromResponse } from './errors';
import { signRequest, type SigningScheme } from './signing';

export interface ClientOptions {
  /** Where the gateway listens: `https://pay.example.com` (a path prefix is kept and signed). */
  readonly baseUrl: string;
  /** `pk_…` */
  readonly apiKey: string;
  /** `sk_…` */
  readonly apiSecret: string;
  /** `timestamped` (default: replay-safe, `X-Service-Timestamp`) or `body` (the spec's scheme). */
  readonly signing?: SigningScheme;
  /** Per-call timeout; the gateway itself gives the daemon 15 s. Default 30 000. */
  readonly timeoutMs?: number;
  /** Another fetch (a proxy agent, a test double). Default: the global fetch of Node 20+. */
  readonly fetch?: typeof fetch;
  /** Now in milliseconds, for the timestamped scheme (a host whose clock is known to drift). */
  readonly now?: () => number;
  /**
   * Parses response bodies. Default JSON.parse: amounts are strings and stay exact, but a number
   * in your `metadata` beyond a double's precision would not (pass a lossless parser for those).
   */
  readonly parseJson?: (text: string) => unknown;
}

/** Query parameters: strings, numbers or booleans; undefined ones are left out. */
export type Query = object;

export interface Call {
  readonly method: 'GET' | 'POST';
  /** The path under baseUrl, segments already encoded (`/v1/invoices/…`). */
  readonly path: string;
  readonly query?: Query;
  /** false for the two unsigned endpoints (networks, the OpenAPI document). */
  readonly signed?: boolean;
  /** Serialized once with JSON.stringify: the bytes signed are the bytes sent. */
  readonly body?: unknown;
}

/** Signs and sends one call; answers the parsed 2xx body or throws ChainpayError. */
export class Transport {
  private readonly base: URL;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: ClientOptions) {
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  async send(call: Call): Promise<unknown> {
    const url = this.url(call.path, call.query);
    const body = call.method === 'GET' ? '' : JSON.stringify(call.body ?? {});
    // The request target as the gateway will see it: what fetch sends for this URL.
    const target = url.pathname + url.search;
    const headers: Record<string, string> =
      call.signed === false
        ? {}
        : signRequest({
            apiKey: this.options.apiKey,
            apiSecret: this.options.apiSecret,
            scheme: this.options.signing ?? 'timestamped',
            method: call.method,
            path: target,
            body,
            timestamp: Math.floor((this.options.now?.() ?? Date.now()) / 1000),
          });
    if (call.method === 'POST') headers['Content-Type'] = 'application/json';
    headers.Accept = 'application/json';
    const res = await this.fetch(url.href, {
      method: call.method,
      headers,
      body: call.method === 'GET' ? undefined : body,
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      redirect: 'error',
    });
    const text = await res.text();
    if (!res.ok) throw errorFromResponse(res.status, text, res.headers.get('retry-after'), `${call.method} ${target}`);
    if (text === '') return undefined;
    return (this.options.parseJson ?? JSON.parse)(text);
  }

  /** baseUrl + path + query (parameters in the order given; undefined ones left out). */
  url(path: string, query: Query = {}): URL {
    const url = new URL(path.replace(/^\//, ''), this.base);
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined) continue;
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw new TypeError(`query parameter ${name}: ${typeof value}`);
      params.append(name, String(value));
    }
    url.search = params.toString();
    return url;
  }
}
