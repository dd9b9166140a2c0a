import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { spawnTs, grpcPortFrom, type Spawned } from '../support/processes';
import { rpc } from '../support/stack';
import { MerchantServiceClient, type CreateMerchantResponse, type Merchant } from '../../src/grpc/generated/chainpay/v1/merchants';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';

jest.setTimeout(120_000);

function operatorMd(dataDir: string): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${fs.readFileSync(path.join(dataDir, 'operator-token'), 'utf8').trim()}`);
  return md;
}

const running: Spawned[] = [];
afterEach(() => {
  for (const p of running.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
});

describe('daemon start-up on the embedded defaults', () => {
  it('starts on a fresh DATA_DIR with embedded PostgreSQL, stops gracefully on SIGTERM, and a second start reuses the data', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-startup-'));
    const env = { DATA_DIR: dataDir, GRPC_PORT: '0', DATABASE_URL: undefined };

    const first = spawnTs('src/main.ts', env);
    running.push(first);
    const port1 = grpcPortFrom(await first.waitFor(/gRPC server listening/));
    expect(first.output()).toMatch(/generated key material on first start/);
    for (const f of ['master.key', 'operator-token', 'hd-seed.mnemonic']) expect(fs.statSync(path.join(dataDir, f)).mode & 0o077).toBe(0);
    const client1 = new MerchantServiceClient(`127.0.0.1:${port1}`, grpc.credentials.createInsecure());
    const created = await rpc<CreateMerchantResponse>((cb) => client1.createMerchant({ name: 'Persisted shop' }, operatorMd(dataDir), cb));
    client1.close();
    // The secret never reaches a log line.
    expect(first.output()).not.toContain(created.api_secret);
    first.child.kill('SIGTERM');
    expect(await first.exited()).toBe(0);
    expect(first.output()).toMatch(/daemon stopped/);

    const second = spawnTs('src/main.ts', env);
    running.push(second);
    const port2 = grpcPortFrom(await second.waitFor(/gRPC server listening/));
    expect(second.output()).not.toMatch(/generated key material/);
    const client2 = new MerchantServiceClient(`127.0.0.1:${port2}`, grpc.credentials.createInsecure());
    const again = await rpc<Merchant>((cb) => client2.getMerchant({ merchant_id: created.merchant!.merchant_id }, operatorMd(dataDir), cb));
    expect(again.name).toBe('Persisted shop');
    const healthPkg = grpc.loadPackageDefinition(protoLoader.loadSync(healthProtoPath, { enums: String })) as unknown as {
      grpc: { health: { v1: { Health: new (addr: string, creds: grpc.ChannelCredentials) => grpc.Client & { check(req: object, cb: (e: Error | null, r: { status: string }) => void): void } } } };
    };
    const health = new healthPkg.grpc.health.v1.Health(`127.0.0.1:${port2}`, grpc.credentials.createInsecure());
    const status = await new Promise<{ status?: string }>((resolve, reject) => health.check({ service: '' }, (e, r) => (e ? reject(e) : resolve(r))));
    expect(status.status).toBe('SERVING');
    health.close();
    client2.close();
    second.child.kill('SIGINT');
    expect(await second.exited()).toBe(0);
  });

  it('a bad configuration value stops start-up with a message naming the variable', async () => {
    const p = spawnTs('src/main.ts', { GRPC_PORT: 'not-a-port', DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-badcfg-')) });
    expect(await p.exited()).toBe(78);
    expect(p.output()).toMatch(/GRPC_PORT/);
  });
});
