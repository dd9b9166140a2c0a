import { createHmac } from 'node:crypto';
import http from 'node:http';
import pino from 'pino';
import { createGateway, type Gateway, type GatewayOptions } from '../../gateway/server';
import { FakeDaemon } from './fake-daemon';
import { checkResponse, headerReader, isV1Path } from '../support/openapi';

export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
  json(): any;
}

export interface RawRequest {
  readonly method?: string;
  readonly path: string;
  readonly headers?: Record<string, string | number>;
  /** Sent as is; with `chunked` it is written in two pieces without a Content-Length. */
  readonly body?: Buffer | string;
  readonly chunked?: boolean;
  /**
   * false: the response is not checked against the OpenAPI document. Only for answers a fake daemon
   * makes up that the real one never gives (a code on a status it never has), to test the
   * gateway's mapping itself.
   */
  readonly openapi?: boolean;
}

/** node:http with no agent (no keep-alive), so headers and bytes are exactly what the test says. `/v1` answers are validated against the OpenAPI document. */
export function send(port: number, req: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
    const headers: Record<string, string | number> = { ...req.headers };
    if (body !== undefined && !req.chunked) headers['Content-Length'] = body.length;
    const r = http.request({ host: '127.0.0.1', port, method: req.method ?? 'GET', path: req.path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        // Every /v1 answer of the gateway is checked against the served OpenAPI document.
        if (req.openapi !== false && isV1Path(req.path.split('?', 1)[0]!)) {
          try {
            checkResponse({ method: req.method ?? 'GET', target: req.path, status: res.statusCode ?? 0, header: headerReader(res.headers), text });
          } catch (err) {
            return reject(err);
          }
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    // A server that refuses early may reset while we are still writing: the response is what counts.
    r.on('error', reject);
    if (body !== undefined && req.chunked) {
      r.write(body.subarray(0, body.length >> 1));
      r.end(body.subarray(body.length >> 1));
    } else r.end(body);
  });
}

export const API_KEY = 'pk_test_123';
export const API_SECRET = 'sk_test_secret';
export const sign = (body: Buffer | string): string => createHmac('sha256', API_SECRET).update(body).digest('hex');

/** Headers of a correctly signed request over `body` ('' for GET). */
export function signed(body: Buffer | string = '', extra: Record<string, string> = {}): Record<string, string> {
  const base: Record<string, string> = { 'X-Service-Key': API_KEY, 'X-Service-Signature': sign(body) };
  if (body.length > 0) base['Content-Type'] = 'application/json';
  return { ...base, ...extra };
}

export interface Harness {
  readonly daemon: FakeDaemon;
  readonly gateway: Gateway;
  readonly port: number;
  stop(): Promise<void>;
}

/** A fake daemon plus a gateway in front of it, both on ephemeral ports. */
export async function startHarness(opts: Partial<GatewayOptions> = {}, daemonOptions: { relay?: boolean } = {}): Promise<Harness> {
  const daemon = await new FakeDaemon(daemonOptions).start();
  const gateway = createGateway({ grpcAddress: daemon.address, logger: pino({ level: 'silent' }), ...opts });
  const port = await gateway.listen(0, '127.0.0.1');
  return {
    daemon,
    gateway,
    port,
    stop: async () => {
      await gateway.close();
      daemon.stop();
    },
  };
}
