import * as v1 from './v1-handlers';
import type { Handler } from './v1-handlers';

/** A method on a route. Every POST is signed and carries a JSON object body. */
export interface RouteSpec {
  readonly signed: boolean;
  readonly handle: Handler;
  /**
   * POST only: 'optional' when the body has no required field (`{}` and no body at all mean the
   * same). A request without a body then needs no Content-Type (RFC 9110 8.3: only a request with
   * content sends one); one with a body still must be `application/json`.
   */
  readonly body?: 'required' | 'optional';
}

export interface Route {
  /** Segments; `:name` captures one non-empty, percent-decoded segment. */
  readonly path: string;
  readonly methods: Readonly<Partial<Record<'GET' | 'POST', RouteSpec>>>;
}

export const V1_ROUTES: readonly Route[] = [
  { path: '/v1/networks', methods: { GET: { signed: false, handle: v1.listNetworks } } },
  { path: '/v1/openapi.json', methods: { GET: { signed: false, handle: v1.getOpenApi } } },
  { path: '/v1/invoices', methods: { POST: { signed: true, handle: v1.createInvoice }, GET: { signed: true, handle: v1.listInvoices } } },
  { path: '/v1/invoices/:uuid', methods: { GET: { signed: true, handle: v1.getInvoice } } },
  { path: '/v1/invoices/:uuid/network', methods: { POST: { signed: true, handle: v1.setInvoiceNetwork } } },
  { path: '/v1/invoices/:uuid/cancel', methods: { POST: { signed: true, handle: v1.cancelInvoice, body: 'optional' } } },
  // Beyond the spec (issue 49): refunds.
  { path: '/v1/invoices/:uuid/refunds', methods: { POST: { signed: true, handle: v1.createRefund, body: 'optional' }, GET: { signed: true, handle: v1.listInvoiceRefunds } } },
  { path: '/v1/refunds/:uuid', methods: { GET: { signed: true, handle: v1.getRefund } } },
  { path: '/v1/refunds/:uuid/cancel', methods: { POST: { signed: true, handle: v1.cancelRefund, body: 'optional' } } },
  { path: '/v1/withdrawals', methods: { POST: { signed: true, handle: v1.createWithdrawal }, GET: { signed: true, handle: v1.listWithdrawals } } },
  // Beyond the spec.
  { path: '/v1/withdrawals/:uuid', methods: { GET: { signed: true, handle: v1.getWithdrawal } } },
  { path: '/v1/balance', methods: { GET: { signed: true, handle: v1.getBalance } } },
  { path: '/v1/events', methods: { GET: { signed: true, handle: v1.listEvents } } },
  { path: '/v1/events/:id/redeliver', methods: { POST: { signed: true, handle: v1.redeliverEvent, body: 'optional' } } },
  { path: '/v1/webhooks/test', methods: { POST: { signed: true, handle: v1.testWebhook, body: 'optional' } } },
];

export type RouteMatch =
  | { readonly kind: 'found'; readonly spec: RouteSpec; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: 'method_not_allowed'; readonly allow: readonly string[] }
  | { readonly kind: 'not_found' };

/** Path (no query string) + method -> route. A path that matches with another method is a 405, not a 404. */
export function matchRoute(method: string, pathname: string, routes: readonly Route[] = V1_ROUTES): RouteMatch {
  const segments = pathname.split('/');
  for (const route of routes) {
    const params = matchPath(route.path.split('/'), segments);
    if (params === undefined) continue;
    const spec = route.methods[method as keyof Route['methods']];
    if (spec !== undefined) return { kind: 'found', spec, params };
    return { kind: 'method_not_allowed', allow: Object.keys(route.methods) };
  }
  return { kind: 'not_found' };
}

function matchPath(pattern: readonly string[], segments: readonly string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const want = pattern[i]!;
    const got = segments[i]!;
    if (!want.startsWith(':')) {
      if (want !== got) return undefined;
      continue;
    }
    const value = decodeSegment(got);
    if (value === undefined || value === '') return undefined;
    params[want.slice(1)] = value;
  }
  return params;
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
