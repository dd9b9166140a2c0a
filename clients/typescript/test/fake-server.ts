import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as a local HTTP server received it: the raw target and body bytes, for signature checks. */
export interface Seen {
  readonly method: string;
  /** The request target exactly as received (path and query string). */
  readonly target: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

export type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

/**
 * A real local HTTP server standing in for the gateway in the client's own tests (the end-to-end
 * tests under test/ drive the real one). `answer` decides each response.
 */
export class FakeServer {
  readonly seen: Seen[] = [];
  private constructor(
    private readonly server: http.Server,
    readonly baseUrl: string,
  ) {}

  static async start(answer: (req: Seen) => Answer): Promise<FakeServer> {
    let self: FakeServer | undefined;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const seen: Seen = { method: req.method ?? '', target: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
        self?.seen.push(seen);
        const a = answer(seen);
        const text = a.body === undefined ? '' : typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
        res.writeHead(a.status, { 'Content-Type': 'application/json', ...a.headers }).end(text);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new FakeServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return self;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
