import { createHmac } from 'node:crypto';

/**
 * What the load generator sends, described in plain data (it crosses the IPC channel) and turned
 * into request bytes in the generator's process. Signed exactly as a merchant signs: hex
 * HMAC-SHA256 of the body bytes (the empty string for a GET).
 */
export type RequestSpec =
  | { readonly kind: 'create'; readonly apiKey: string; readonly apiSecret: string; readonly network: string | null; readonly orderPrefix: string }
  | { readonly kind: 'get'; readonly apiKey: string; readonly apiSecret: string; readonly paths: readonly string[] }
  | { readonly kind: 'plain'; readonly path: string }
  /** Signed POSTs given in full, sent in order (request `seq` is `posts[seq % posts.length]`). */
  | { readonly kind: 'posts'; readonly posts: readonly { readonly path: string; readonly apiKey: string; readonly apiSecret: string; readonly body: string }[] };

export type RequestFactory = (seq: number) => Buffer;

const sign = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

function bytes(method: string, path: string, headers: Record<string, string>, body = ''): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  if (method !== 'GET') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** A realistic body: amount, network, a unique order_id (exercises the unique index), some metadata. */
export function createInvoiceBody(network: string | null, orderId: string): string {
  return JSON.stringify({ amount: '25.50', ...(network ? { network } : {}), order_id: orderId, title: 'Order at the bench shop', metadata: { customer: 'c-1042', cart: ['sku-1', 'sku-2'] } });
}

export function requestFactory(spec: RequestSpec): RequestFactory {
  switch (spec.kind) {
    case 'create':
      return (seq) => {
        const body = createInvoiceBody(spec.network, `${spec.orderPrefix}-${seq}`);
        return bytes('POST', '/v1/invoices', { 'Content-Type': 'application/json', 'X-Service-Key': spec.apiKey, 'X-Service-Signature': sign(spec.apiSecret, body) }, body);
      };
    case 'get': {
      const signature = sign(spec.apiSecret, '');
      const prebuilt = spec.paths.map((p) => bytes('GET', p, { 'X-Service-Key': spec.apiKey, 'X-Service-Signature': signature }));
      return (seq) => prebuilt[seq % prebuilt.length]!;
    }
    case 'posts': {
      const prebuilt = spec.posts.map((p) => bytes('POST', p.path, { 'Content-Type': 'application/json', 'X-Service-Key': p.apiKey, 'X-Service-Signature': sign(p.apiSecret, p.body) }, p.body));
      return (seq) => prebuilt[seq % prebuilt.length]!;
    }
    case 'plain': {
      const prebuilt = bytes('GET', spec.path, {});
      return () => prebuilt;
    }
  }
}
