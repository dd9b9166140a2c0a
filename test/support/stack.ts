import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHmac } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { loadConfig, type LoadConfigOptions } from '../../src/config/config';
import { startDaemon, type Daemon, type DaemonOptions } from '../../src/daemon';
import type { DaemonClock } from '../../src/actors/daemon-clock';
import { createLogger } from '../../src/observability/logger';
import { createGateway } from '../../gateway/server';
import { createTestDatabase, type TestDatabase } from './database';
import { TEST_POOL } from './test-pool';
import { MerchantServiceClient, type CreateMerchantResponse } from '../../src/grpc/generated/chainpay/v1/merchants';
import { NetworkServiceClient } from '../../src/grpc/generated/chainpay/v1/networks';
import { InvoiceServiceClient } from '../../src/grpc/generated/chainpay/v1/invoices';
import { DevnetServiceClient } from '../../src/grpc/generated/chainpay/v1/devnet';
import { OperatorServiceClient } from '../../src/grpc/generated/chainpay/v1/operator';
import { WithdrawalServiceClient } from '../../src/grpc/generated/chainpay/v1/withdrawals';

/** A real daemon (real PostgreSQL, real gRPC on an ephemeral port) and a real gateway in front of it. */
export interface Stack {
  readonly daemon: Daemon;
  readonly baseUrl: string;
  readonly grpcAddress: string;
  readonly dataDir: string;
  readonly databaseUrl: string;
  readonly operator: grpc.Metadata;
  readonly clients: {
    merchants: MerchantServiceClient;
    networks: NetworkServiceClient;
    invoices: InvoiceServiceClient;
    devnet: DevnetServiceClient;
    operator: OperatorServiceClient;
    withdrawals: WithdrawalServiceClient;
  };
  stop(): Promise<void>;
}

/** `logger`: the daemon's logger (a test that reads the daemon's log lines passes its own). */
/** `clock`: a clock the test drives (live stacks have no DevnetService to advance time with). */
export async function startStack(
  options: { env?: Record<string, string>; database?: TestDatabase; dataDir?: string; logger?: Logger; clock?: DaemonClock; daemon?: DaemonOptions; config?: LoadConfigOptions } = {},
): Promise<Stack> {
  const db = options.database ?? (await createTestDatabase());
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-test-'));
  // Live mode (an RPC URL) refuses the lifted webhook guard: devnet stacks only.
  const live = Object.keys(options.env ?? {}).some((k) => k.endsWith('_RPC_URL')) || options.env?.CHAIN_MODE === 'live';
  const config = loadConfig(
    {
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      GRPC_PORT: '0',
      HTTP_PORT: '0',
      DEVNET_BLOCK_MS: '0',
      ...TEST_POOL,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ...(live ? {} : { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' }),
      ...options.env,
    },
    options.config,
  );
  const logger = options.logger ?? createLogger(config.LOG_LEVEL, 'test-daemon');
  const daemon = await startDaemon(config, { ...options.daemon, logger, clock: options.clock ?? options.daemon?.clock });
  const grpcAddress = `127.0.0.1:${daemon.grpcPort}`;
  const gateway = createGateway({ grpcAddress, logger: createLogger(config.LOG_LEVEL, 'test-gateway') });
  const port = await gateway.listen(0, '127.0.0.1');
  const creds = grpc.credentials.createInsecure();
  const opts = { 'grpc.max_metadata_size': 256 * 1024 };
  const operator = new grpc.Metadata();
  operator.set('authorization', `Bearer ${daemon.operatorToken}`);
  const clients = {
    merchants: new MerchantServiceClient(grpcAddress, creds, opts),
    networks: new NetworkServiceClient(grpcAddress, creds, opts),
    invoices: new InvoiceServiceClient(grpcAddress, creds, opts),
    devnet: new DevnetServiceClient(grpcAddress, creds, opts),
    operator: new OperatorServiceClient(grpcAddress, creds, opts),
    withdrawals: new WithdrawalServiceClient(grpcAddress, creds, opts),
  };
  return {
    daemon,
    baseUrl: `http://127.0.0.1:${port}`,
    grpcAddress,
    dataDir,
    databaseUrl: db.url,
    operator,
    clients,
    stop: async () => {
      for (const c of Object.values(clients)) c.close();
      await gateway.close();
      await daemon.stop();
      if (!options.database) await db.drop();
    },
  };
}

/** Promisify one unary call: `await rpc<Res>((cb) => client.method(req, md, cb))`. */
export function rpc<Res>(invoke: (cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown): Promise<Res> {
  return new Promise((resolve, reject) => {
    invoke((err, res) => (err ? reject(err) : resolve(res)));
  });
}

export interface MerchantCredentials {
  readonly merchantId: string;
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly webhookSecret: string;
}

export async function createMerchant(stack: Stack, input: { name?: string; webhook_url?: string; platform_fee_percent?: string } = {}): Promise<MerchantCredentials> {
  const res = await rpc<CreateMerchantResponse>((cb) => stack.clients.merchants.createMerchant({ name: input.name ?? 'Test shop', ...input }, stack.operator, cb));
  return { merchantId: res.merchant!.merchant_id, apiKey: res.merchant!.api_key, apiSecret: res.api_secret, webhookSecret: res.webhook_secret };
}

export interface SignedResponse {
  readonly status: number;
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly text: string;
  readonly headers: Headers;
}

/**
 * Sends a request signed exactly as the spec says: hex HMAC-SHA256 of the body bytes (empty for GET).
 * Its response is validated against the OpenAPI document by the suite's fetch (test/support/openapi-setup.ts).
 */
export async function signed(stack: Stack, creds: { apiKey: string; apiSecret: string }, method: string, urlPath: string, body?: unknown): Promise<SignedResponse> {
  const raw = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  const signature = createHmac('sha256', creds.apiSecret).update(raw).digest('hex');
  const headers: Record<string, string> = { 'X-Service-Key': creds.apiKey, 'X-Service-Signature': signature };
  if (method !== 'GET') headers['Content-Type'] = 'application/json';
  const res = await fetch(stack.baseUrl + urlPath, { method, headers, body: method === 'GET' ? undefined : raw });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

/** Polls until `check` returns a value that is not undefined (or throws after timeoutMs). */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** GET the invoice until its status is `status`; returns the body. */
export async function waitForStatus(stack: Stack, creds: { apiKey: string; apiSecret: string }, uuid: string, status: string, timeoutMs = 10_000): Promise<any> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  return eventually(
    async () => {
      const r = await signed(stack, creds, 'GET', `/v1/invoices/${uuid}`);
      return r.body?.status === status ? r.body : undefined;
    },
    timeoutMs,
    `invoice ${uuid} to be ${status}`,
  );
}
