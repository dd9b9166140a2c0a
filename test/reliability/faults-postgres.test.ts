import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createGateway } from '../../gateway/server';
import type { CreateMerchantResponse } from '../../src/grpc/generated/chainpay/v1/merchants';
import { MerchantServiceClient } from '../../src/grpc/generated/chainpay/v1/merchants';
import * as grpc from '@grpc/grpc-js';
import { createLogger } from '../../src/observability/logger';
import type { Spawned } from '../support/processes';
import { eventually } from '../support/stack';
import { call, FIXED_KEYS } from './support/daemon-process';
import { recordFigures } from './support/figures';
import { checkInvariants } from './support/invariants';
import { scaled } from './support/long-mode';
import { createPrivatePostgres, type PrivatePostgres } from './support/private-postgres';
import { supervise, type Supervisor } from './support/supervisor';

/**
 * Faults beyond the daemon: PostgreSQL stopped hard (every connection cut) under a load of invoice
 * creations through the gateway, down for a while, started again; then the gateway killed and
 * started again mid-load. The daemon runs under a supervisor, as in production. Every request ends
 * in a 2xx or a clean 503 (never a 500, never a hang), creation resumes after the outage, a retry
 * of every failed request with its order_id creates each invoice exactly once, and nothing is
 * half-written (checked against the ledger, the outbox and the address pool).
 */
const OUTAGES = scaled(1, 20);
jest.setTimeout(scaled(400_000, 2 * 60 * 60_000));

describe('PostgreSQL restarted and the gateway killed under load', () => {
  let pg: PrivatePostgres;
  let daemon: Supervisor;
  const running: Spawned[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-rel-pg-'));
  beforeAll(async () => {
    pg = await createPrivatePostgres();
  }, 120_000);
  afterAll(async () => {
    await daemon?.stop();
    for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    pg?.remove();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 2xx or 503 throughout, resumes, and creates every invoice exactly once', async () => {
    const grpcPort = await freePort();
    daemon = supervise('src/main.ts', { DATABASE_URL: pg.url, DATA_DIR: dataDir, GRPC_PORT: String(grpcPort), DEVNET_BLOCK_MS: '0', LOG_LEVEL: 'info', ...FIXED_KEYS }, running);
    await daemon.ready(/gRPC server listening/);
    const grpcAddress = `127.0.0.1:${grpcPort}`;
    const merchants = new MerchantServiceClient(grpcAddress, grpc.credentials.createInsecure());
    const md = new grpc.Metadata();
    md.set('authorization', `Bearer ${FIXED_KEYS.OPERATOR_TOKEN}`);
    const created = await call<CreateMerchantResponse>((cb) => merchants.createMerchant({ name: 'pg faults' }, md, cb));
    merchants.close();
    const creds = { apiKey: created.merchant!.api_key, apiSecret: created.api_secret };

    let gateway = createGateway({ grpcAddress, logger: createLogger('silent', 'test-gateway') });
    const port = await gateway.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${port}`;
    const statuses = new Map<string, number[]>();
    let n = 0;
    let loading = true;
    const attempt = async (orderId: string): Promise<number> => {
      const body = JSON.stringify({ amount: '5', network: pick(n), order_id: orderId });
      const signature = createHmac('sha256', creds.apiSecret).update(body).digest('hex');
      try {
        const res = await fetch(`${base}/v1/invoices`, {
          method: 'POST',
          headers: { 'X-Service-Key': creds.apiKey, 'X-Service-Signature': signature, 'Content-Type': 'application/json' },
          body,
          signal: AbortSignal.timeout(30_000),
        });
        await res.text();
        return res.status;
      } catch {
        return 0; // the connection went away (the gateway was killed): the outcome is unknown to the client
      }
    };
    const client = async (): Promise<void> => {
      while (loading) {
        const orderId = `pg-${n++}`;
        const status = await attempt(orderId);
        statuses.set(orderId, [...(statuses.get(orderId) ?? []), status]);
        if (status !== 201) await new Promise((r) => setTimeout(r, 50));
      }
    };
    const clients = Array.from({ length: 6 }, client);

    let restarts = 0;
    try {
      for (let outage = 0; outage < OUTAGES; outage++) {
        await new Promise((r) => setTimeout(r, 1500));
        pg.stop('immediate');
        await new Promise((r) => setTimeout(r, 2500));
        pg.start();
        restarts++;
        await daemon.ready(/gRPC server listening/);
      }
      // The gateway killed mid-load (its connections cut), a new one on the same port.
      await new Promise((r) => setTimeout(r, 1000));
      await gateway.close();
      gateway = createGateway({ grpcAddress, logger: createLogger('silent', 'test-gateway') });
      await gateway.listen(port, '127.0.0.1');
      await new Promise((r) => setTimeout(r, 2000));
    } finally {
      loading = false;
      await Promise.all(clients);
    }

    const all = [...statuses.values()].flat();
    const unexpected = all.filter((s) => ![200, 201, 503, 0].includes(s));
    expect(unexpected).toEqual([]);
    expect(all.filter((s) => s === 503).length).toBeGreaterThan(0); // the outage was felt
    // Resumed: the last requests of every client succeeded.
    const last = [...statuses.entries()].slice(-6).map(([, s]) => s.at(-1));
    expect(last.every((s) => s === 201)).toBe(true);

    // Every request that did not get its answer is retried with its order_id: one invoice each.
    // (A retry may still meet the tail of the outage, a 503: it is retried until answered.)
    for (const [orderId, s] of statuses) {
      if (s.includes(201)) continue;
      const answered = await eventually(
        async () => {
          const status = await attempt(orderId);
          return status === 503 || status === 0 ? undefined : status;
        },
        60_000,
        `a retry of ${orderId} to be answered`,
      );
      expect([200, 201]).toContain(answered);
    }
    const db = new Client({ connectionString: pg.url });
    await db.connect();
    const dupes = await db.query(`select order_id, count(*) from invoices group by order_id having count(*) > 1`);
    const missing = (await db.query<{ order_id: string }>(`select order_id from invoices`)).rows.map((r) => r.order_id);
    // Half-written: an invoice on a network without its address (or memo), an address given twice, or one the pool never had.
    const halfWritten = await db.query(
      `select uuid, 'no address' as why from invoices where network is not null and (address is null or (network = 'TON' and memo is null))
       union all select min(uuid::text)::uuid, 'address twice' from invoices where network is not null and network <> 'TON' group by network, address having count(*) > 1
       union all select i.uuid, 'not from the pool' from invoices i where i.network is not null and i.network <> 'TON'
         and not exists (select 1 from deposit_addresses d where d.network = i.network and d.address = i.address)`,
    );
    await db.end();
    expect(dupes.rows).toEqual([]);
    expect(new Set(missing)).toEqual(new Set(statuses.keys()));
    expect(halfWritten.rows).toEqual([]);
    expect(await checkInvariants(pg.url)).toEqual([]);
    // The outage is the database away, a retryable class for every watch's run loop: no watcher halted.
    expect(running.map((p) => p.output()).join('\n')).not.toMatch(/"alert":"watcher_halted"/);
    recordFigures('faults-postgres', {
      requests: all.length,
      unavailable: all.filter((s) => s === 503).length,
      cut: all.filter((s) => s === 0).length,
      outages: restarts,
      daemonStarts: daemon.starts,
      violations: 0,
    });
    await gateway.close();
  });
});

const NETWORKS = ['TRC20', 'BEP20', 'TON', 'POLYGON', 'ARBITRUM', 'SOLANA'];
const pick = (i: number): string => NETWORKS[i % NETWORKS.length]!;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
