import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import https from 'node:https';
import type { Socket } from 'node:net';
import { execFileSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import pino, { type Logger } from 'pino';
import { noteWebhook } from '../support/openapi';

/** A throw-away self-signed certificate for 127.0.0.1 / localhost / receiver.test (openssl at test time). */
export interface TestCert {
  readonly key: string;
  readonly cert: string;
  readonly certFile: string;
}

export function makeCert(): TestCert {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-cert-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-subj',
      '/CN=chainpay-test-receiver',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:receiver.test',
    ],
    { stdio: 'ignore' },
  );
  return { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8'), certFile };
}

export interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly json: { id: string; type: string; created_at: string; data: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** What the receiver answers: a status (and headers), or 'hang' (never answer). */
export type Reply = { status: number; headers?: Record<string, string> } | 'hang';

/** A real local HTTPS webhook receiver that can go down and come back on the same port. */
export class Receiver {
  readonly requests: Received[] = [];
  /** TCP connections accepted (a refused target must not even connect). */
  connections = 0;
  reply: (path: string) => Reply = () => ({ status: 200 });
  /**
   * Whether each delivery is checked against the OpenAPI document's webhooks. Off only where a
   * test hands the sender a payload of its own making (transport tests), never a daemon's event.
   */
  openapi = true;
  private server: https.Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly tls: TestCert) {}

  static async start(tls: TestCert): Promise<Receiver> {
    const r = new Receiver(tls);
    await r.up();
    return r;
  }

  url(p = '/hook'): string {
    return `https://127.0.0.1:${this.port}${p}`;
  }

  at(p: string): Received[] {
    return this.requests.filter((r) => r.path === p);
  }

  async up(): Promise<void> {
    const server = https.createServer({ key: this.tls.key, cert: this.tls.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        // Under jest every delivery is checked against the OpenAPI document's webhooks (a drift fails
        // the test); not in the benchmark, whose receiver this is too.
        if (this.openapi && process.env.JEST_WORKER_ID !== undefined) noteWebhook(req.headers, body);
        this.requests.push({ path: req.url ?? '', headers: req.headers, body, json: JSON.parse(body.toString('utf8') || 'null') });
        const reply = this.reply(req.url ?? '');
        if (reply === 'hang') return;
        res.writeHead(reply.status, reply.headers).end('ok');
      });
    });
    server.on('connection', (s: Socket) => {
      this.connections++;
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  /** Stops listening (connections are refused) and drops open connections. */
  async down(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    for (const sock of this.sockets) sock.destroy();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}

/** The merchant's check of `X-Service-Signature` (as in docs/webhooks.md). */
export function verifyServiceSignature(apiSecret: string, body: Buffer, header: string | string[] | undefined): boolean {
  const expected = Buffer.from(createHmac('sha256', apiSecret).update(body).digest('hex'));
  const given = Buffer.from(String(header ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The merchant's Standard Webhooks check (as in docs/webhooks.md): any listed v1 signature may match. */
export function verifyStandardWebhook(whsec: string, headers: IncomingHttpHeaders, body: Buffer): boolean {
  const id = String(headers['webhook-id']);
  const ts = String(headers['webhook-timestamp']);
  if (Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const key = Buffer.from(whsec.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.`).update(body).digest('base64');
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .some((s) => s.startsWith('v1,') && s.length === expected.length + 3 && timingSafeEqual(Buffer.from(s.slice(3)), Buffer.from(expected)));
}

/** A logger whose JSON lines land in `lines` (to assert what the daemon logged). */
export function captureLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { logger, lines };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LogLine = { level: number; msg: string; [k: string]: any };
