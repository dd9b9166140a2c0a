import { createHmac } from 'node:crypto';
import http from 'node:http';
import pino from 'pino';
import { Client } from 'pg';
import { createGateway } from '../../gateway/server';
import { createMerchant, eventually, startStack, type MerchantCredentials, type Stack } from '../support/stack';
import { headerReader, noteResponse } from '../support/openapi';

/**
 * The real daemon behind the real gateway: a merchant's POST /v1/invoices whose deadline passes or
 * whose HTTP client goes away before the daemon wrote anything creates nothing (CreateInvoice checks
 * `call.cancelled` right before its one write transaction: src/grpc/call-cancelled.ts), so a retry
 * with the same order_id creates the invoice (201, not the 200 of a repeat).
 *
 * To hold a call before its write, the merchants table is locked: the signature check of a new
 * merchant's first request reads its row there (a signing-secret cache miss) and waits.
 */
type LogLine = { msg: string; [k: string]: unknown };

const CANCELLED_MSG = 'the call was cancelled before anything was written';

describe('CreateInvoice through the relay, cancelled before its write', () => {
  let stack: Stack;
  let db: Client;
  const lines: LogLine[] = [];

  beforeAll(async () => {
    const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) });
    stack = await startStack({ logger });
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const lockWaiters = async (): Promise<number> =>
    (await db.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'")).rows[0]!.n;

  /**
   * Locks the merchants table (a signature check of a merchant not cached yet waits) until
   * `release`. The daemon's background readers of that table (the webhook poller, every 250 ms)
   * block on it too; `waiting` is how many wait once their count has held still for 750 ms, so a
   * waiter beyond it is the request under test.
   */
  let held = false;
  async function lockMerchants(): Promise<{ release: () => Promise<void>; waiting: number }> {
    await db.query('begin');
    await db.query('lock table merchants in access exclusive mode');
    held = true;
    let waiting = await lockWaiters();
    for (let stillSince = Date.now(), deadline = Date.now() + 10_000; Date.now() - stillSince < 750 && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 50));
      const now = await lockWaiters();
      if (now !== waiting) [waiting, stillSince] = [now, Date.now()];
    }
    return {
      waiting,
      release: async () => {
        held = false;
        await db.query('commit');
      },
    };
  }
  // A test that failed while holding the lock must not leave the next one waiting behind it.
  afterEach(async () => {
    if (held) await db.query('rollback');
    held = false;
  });

  /** Resolves once one more statement waits for the lock than the background ones: the daemon's read of the merchant. */
  const someoneWaits = (lock: { waiting: number }): Promise<true> =>
    eventually(async () => ((await lockWaiters()) > lock.waiting ? true : undefined), 10_000, 'a statement waiting for the merchants lock');

  const invoicesWith = async (creds: MerchantCredentials, orderId: string): Promise<number> =>
    (await db.query<{ n: number }>('select count(*)::int as n from invoices where merchant_id = $1 and order_id = $2', [creds.merchantId, orderId])).rows[0]!.n;

  /** A signed POST /v1/invoices on raw http (its socket can be destroyed); resolves with status and body, or 'gone'. */
  function post(baseUrl: string, creds: MerchantCredentials, orderId: string): { done: Promise<{ status: number; body: any } | 'gone'>; leave: () => void } {
    // eslint-disable-line @typescript-eslint/no-explicit-any
    const body = JSON.stringify({ amount: '12.5', network: 'POLYGON', order_id: orderId });
    const url = new URL('/v1/invoices', baseUrl);
    const req = http.request({
      host: url.hostname,
      port: url.port,
      method: 'POST',
      path: url.pathname,
      agent: false,
      headers: {
        'Content-Type': 'application/json',
        'X-Service-Key': creds.apiKey,
        'X-Service-Signature': createHmac('sha256', creds.apiSecret).update(body).digest('hex'),
        'Content-Length': Buffer.byteLength(body),
      },
    });
    const done = new Promise<{ status: number; body: any } | 'gone'>((resolve) => {
      // eslint-disable-line @typescript-eslint/no-explicit-any
      req.on('error', () => resolve('gone'));
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          noteResponse({ method: 'POST', target: url.pathname, status: res.statusCode ?? 0, header: headerReader(res.headers), text });
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
        });
      });
    });
    req.end(body);
    return { done, leave: () => req.destroy() };
  }

  const logged = (msg: string, extra: (l: LogLine) => boolean): Promise<LogLine> => eventually(async () => lines.find((l) => l.msg === msg && extra(l)), 10_000, `log line '${msg}'`);

  it('a client that waits gets its invoice (201): the lock only delays it', async () => {
    const creds = await createMerchant(stack);
    const lock = await lockMerchants();
    const request = post(stack.baseUrl, creds, 'stays-1');
    await someoneWaits(lock);
    await lock.release();
    const res = await request.done;
    expect(res).not.toBe('gone');
    expect((res as { status: number }).status).toBe(201);
    expect(await invoicesWith(creds, 'stays-1')).toBe(1);
  });

  it('a client that goes away before the write creates nothing; its retry creates the invoice (201)', async () => {
    const creds = await createMerchant(stack);
    const lock = await lockMerchants();
    const request = post(stack.baseUrl, creds, 'gone-1');
    await someoneWaits(lock);
    request.leave();
    expect(await request.done).toBe('gone');
    // The gateway's cancel reached the daemon while its handler waited for the lock.
    await logged('relayed call cancelled', (l) => l.method === '/chainpay.v1.InvoiceService/CreateInvoice');
    await lock.release();
    // The handler went on once the row could be read, and stopped before its write.
    await logged(CANCELLED_MSG, (l) => l.rpc === 'CreateInvoice');
    expect(await invoicesWith(creds, 'gone-1')).toBe(0);
    const retry = await post(stack.baseUrl, creds, 'gone-1').done;
    expect(retry !== 'gone' && retry.status).toBe(201);
    expect(await invoicesWith(creds, 'gone-1')).toBe(1);
  });

  it('a call past its deadline is 504 timeout and creates nothing; its retry creates the invoice (201)', async () => {
    const gateway = createGateway({ grpcAddress: stack.grpcAddress, logger: pino({ level: 'silent' }), grpcDeadlineMs: 1_000 });
    const port = await gateway.listen(0, '127.0.0.1');
    try {
      const creds = await createMerchant(stack);
      const before = lines.filter((l) => l.msg === CANCELLED_MSG).length;
      const lock = await lockMerchants();
      const request = post(`http://127.0.0.1:${port}`, creds, 'late-1');
      await someoneWaits(lock);
      const res = await request.done;
      expect(res).toEqual({ status: 504, body: { error: { code: 'timeout', message: 'the service did not answer in time' } } });
      await lock.release();
      await eventually(async () => (lines.filter((l) => l.msg === CANCELLED_MSG).length > before ? true : undefined), 10_000, 'the handler to stop');
      expect(await invoicesWith(creds, 'late-1')).toBe(0);
      const retry = await post(`http://127.0.0.1:${port}`, creds, 'late-1').done;
      expect(retry !== 'gone' && retry.status).toBe(201);
    } finally {
      await gateway.close();
    }
  });
});
