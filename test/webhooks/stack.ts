import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadConfig } from '../../src/config/config';
import { startDaemon, type DaemonOptions } from '../../src/daemon';
import { createLogger } from '../../src/observability/logger';
import { createGateway } from '../../gateway/server';
import { createTestDatabase } from '../support/database';
import { MerchantServiceClient } from '../../src/grpc/generated/chainpay/v1/merchants';
import { NetworkServiceClient } from '../../src/grpc/generated/chainpay/v1/networks';
import { InvoiceServiceClient } from '../../src/grpc/generated/chainpay/v1/invoices';
import { DevnetServiceClient } from '../../src/grpc/generated/chainpay/v1/devnet';
import { OperatorServiceClient } from '../../src/grpc/generated/chainpay/v1/operator';
import { WithdrawalServiceClient } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import type { Stack } from '../support/stack';

/**
 * test/support/stack.ts's startStack, plus daemon options: the in-process daemon must trust the
 * test receiver's self-signed certificate (a real daemon process would use NODE_EXTRA_CA_CERTS,
 * which Node reads only at process start).
 */
export async function startWebhookStack(webhooks: NonNullable<DaemonOptions['webhooks']>, env: Record<string, string> = {}): Promise<Stack> {
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
  const daemon = await startDaemon(config, { logger: createLogger(config.LOG_LEVEL, 'test-daemon'), webhooks });
  const grpcAddress = `127.0.0.1:${daemon.grpcPort}`;
  const gateway = createGateway({ grpcAddress, logger: createLogger(config.LOG_LEVEL, 'test-gateway') });
  const port = await gateway.listen(0, '127.0.0.1');
  const creds = grpc.credentials.createInsecure();
  const operator = new grpc.Metadata();
  operator.set('authorization', `Bearer ${daemon.operatorToken}`);
  const clients = {
    merchants: new MerchantServiceClient(grpcAddress, creds),
    networks: new NetworkServiceClient(grpcAddress, creds),
    invoices: new InvoiceServiceClient(grpcAddress, creds),
    devnet: new DevnetServiceClient(grpcAddress, creds),
    operator: new OperatorServiceClient(grpcAddress, creds),
    withdrawals: new WithdrawalServiceClient(grpcAddress, creds),
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
      await db.drop();
    },
  };
}
