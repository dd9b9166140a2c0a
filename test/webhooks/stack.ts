import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadConfig } from '../../src/config/config';
import { startDaemon, type Daemon, type DaemonOptions } from '../../src/daemon';
import { createLogger } from '../../src/observability/logger';
import { createTestDatabase } from '../support/database';
import { rpc, eventually } from '../support/stack';
import { MerchantServiceClient, type CreateMerchantResponse } from '../../src/grpc/generated/chainpay/v1/merchants';
import { InvoiceServiceClient, type CreateInvoiceRequest, type CreateInvoiceResponse, type Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import { DevnetServiceClient } from '../../src/grpc/generated/chainpay/v1/devnet';
import { OperatorServiceClient, type ListWebhooksRequest, type WebhookEvent } from '../../src/grpc/generated/chainpay/v1/operator';
import { WithdrawalServiceClient } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import type { Logger } from 'pino';

export interface Clients {
  readonly merchants: MerchantServiceClient;
  readonly invoices: InvoiceServiceClient;
  readonly devnet: DevnetServiceClient;
  readonly operator: OperatorServiceClient;
  readonly withdrawals: WithdrawalServiceClient;
}

/** A daemon's gRPC surface (in-process or a spawned process), for the webhook tests. */
export interface Plane {
  readonly grpcAddress: string;
  readonly operator: grpc.Metadata;
  readonly clients: Clients;
}

export function connect(grpcAddress: string, operatorToken: string): Plane & { close(): void } {
  const creds = grpc.credentials.createInsecure();
  const operator = new grpc.Metadata();
  operator.set('authorization', `Bearer ${operatorToken}`);
  const clients = {
    merchants: new MerchantServiceClient(grpcAddress, creds),
    invoices: new InvoiceServiceClient(grpcAddress, creds),
    devnet: new DevnetServiceClient(grpcAddress, creds),
    operator: new OperatorServiceClient(grpcAddress, creds),
    withdrawals: new WithdrawalServiceClient(grpcAddress, creds),
  };
  return { grpcAddress, operator, clients, close: () => Object.values(clients).forEach((c) => c.close()) };
}

export interface WebhookStack extends Plane {
  readonly daemon: Daemon;
  readonly dataDir: string;
  stop(): Promise<void>;
}

/**
 * A real daemon (fresh database, devnet, gRPC) like test/support/stack.ts, without the gateway and
 * with daemon options: the in-process daemon must trust the test receiver's self-signed
 * certificate (a daemon process uses NODE_EXTRA_CA_CERTS, which Node reads only at start).
 */
export async function startWebhookStack(webhooks: NonNullable<DaemonOptions['webhooks']>, env: Record<string, string> = {}, logger?: Logger): Promise<WebhookStack> {
  const db = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-test-'));
  const config = loadConfig({
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    GRPC_PORT: '0',
    HTTP_PORT: '0',
    DEVNET_BLOCK_MS: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
    ...env,
  });
  const daemon = await startDaemon(config, { logger: logger ?? createLogger(config.LOG_LEVEL, 'test-daemon'), webhooks });
  const plane = connect(`127.0.0.1:${daemon.grpcPort}`, daemon.operatorToken);
  return {
    ...plane,
    daemon,
    dataDir,
    stop: async () => {
      plane.close();
      await daemon.stop();
      await db.drop();
    },
  };
}

export interface Shop {
  readonly merchantId: string;
  readonly apiSecret: string;
  readonly webhookSecret: string;
}

export async function createShop(p: Plane, webhookUrl?: string): Promise<Shop> {
  const res = await rpc<CreateMerchantResponse>((cb) => p.clients.merchants.createMerchant({ name: 'Webhook shop', webhook_url: webhookUrl }, p.operator, cb));
  return { merchantId: res.merchant!.merchant_id, apiSecret: res.api_secret, webhookSecret: res.webhook_secret };
}

export function asMerchant(p: Plane, merchantId: string): grpc.Metadata {
  const md = p.operator.clone();
  md.set('x-merchant-id', merchantId);
  return md;
}

export async function createInvoice(p: Plane, shop: Shop, req: Partial<CreateInvoiceRequest>): Promise<Invoice> {
  const res = await rpc<CreateInvoiceResponse>((cb) => p.clients.invoices.createInvoice({ amount: '10', network: 'TRC20', ...req }, asMerchant(p, shop.merchantId), cb));
  return res.invoice!;
}

export async function waitInvoice(p: Plane, shop: Shop, uuid: string, status: string): Promise<Invoice> {
  return eventually(
    async () => {
      const inv = await rpc<Invoice>((cb) => p.clients.invoices.getInvoice({ uuid }, asMerchant(p, shop.merchantId), cb));
      return inv.status === status ? inv : undefined;
    },
    10_000,
    `invoice ${uuid} to be ${status}`,
  );
}

/** Pays the invoice in full on devnet (one transfer); the invoice becomes `confirming`. */
export async function pay(p: Plane, inv: Invoice): Promise<void> {
  await rpc((cb) => p.clients.devnet.pay({ network: inv.network!, to: inv.address!, amount: inv.pay_amount }, p.operator, cb));
}

export async function listWebhooks(p: Plane, req: Partial<ListWebhooksRequest>): Promise<WebhookEvent[]> {
  const res = await rpc<{ events: WebhookEvent[] }>((cb) => p.clients.operator.listWebhooks({ limit: 0, ...req }, p.operator, cb));
  return res.events;
}

export async function advance(p: Plane, seconds: number): Promise<void> {
  await rpc((cb) => p.clients.devnet.advanceTime({ seconds: String(seconds) }, p.operator, cb));
}
