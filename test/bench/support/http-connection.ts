import net from 'node:net';

/** One response as the load generator needs it: the status and the body bytes. */
export interface RawResponse {
  readonly status: number;
  readonly body: Buffer;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;

/**
 * A keep-alive HTTP/1.1 connection that sends pre-built request bytes and reads one response at a
 * time (no pipelining). Far cheaper per request than http.request/fetch, so the load generator is
 * not what limits the numbers. Only 127.0.0.1 is ever dialled. Responses must carry Content-Length
 * (our gateway and the bare server always do).
 */
export class HttpConnection {
  private readonly socket: net.Socket;
  private buffered: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (r: RawResponse) => void; reject: (e: Error) => void } | null = null;
  private failed: Error | null = null;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    const fail = (err: Error) => {
      this.failed ??= err;
      this.waiting?.reject(err);
      this.waiting = null;
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed')));
  }

  static open(port: number): Promise<HttpConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.once('connect', () => resolve(new HttpConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends one request and resolves with its response. One request in flight per connection. */
  request(bytes: Buffer): Promise<RawResponse> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.waiting) return Promise.reject(new Error('a request is already in flight'));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(bytes);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const end = this.buffered.indexOf(HEADER_END);
    if (end < 0) return;
    const head = this.buffered.toString('latin1', 0, end);
    const length = Number(CONTENT_LENGTH.exec(head)?.[1] ?? 0);
    const total = end + 4 + length;
    if (this.buffered.length < total) return;
    const status = Number(head.slice(9, 12));
    const body = this.buffered.subarray(end + 4, total);
    this.buffered = this.buffered.length === total ? Buffer.alloc(0) : this.buffered.subarray(total);
    const w = this.waiting;
    this.waiting = null;
    w?.resolve({ status, body });
  }
}
