import * as grpc from '@grpc/grpc-js';
import { startStack, createMerchant, signed, rpc, type Stack } from '../support/stack';
import type { RotateSecretResponse } from '../../src/grpc/generated/chainpay/v1/merchants';
import { run } from '../../src/cli/main';

describe('merchants', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('created through the CLI with --json; the secret is stored encrypted and never logged', async () => {
    let out = '';
    const code = await run(['merchant', 'create', '--name', 'CLI shop', '--webhook-url', 'https://shop.example/hook', '--json'], {
      env: { CHAINPAY_GRPC_ADDR: stack.grpcAddress, DATA_DIR: stack.dataDir },
      stdout: { write: (s: string) => void (out += s) },
      stderr: { write: () => undefined },
    });
    expect(code).toBe(0);
    const created = JSON.parse(out) as { merchant_id: string; api_key: string; api_secret: string };
    expect(created.merchant_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.api_key).toMatch(/^pk_/);
    expect(created.api_secret).toMatch(/^sk_[0-9a-f]{64}$/);
    const rows = await stack.daemon.orm.em.fork().getConnection().execute(`select api_secret_enc from merchants where id = ?`, [created.merchant_id]);
    expect(rows[0].api_secret_enc).not.toContain(created.api_secret.slice(3, 20));
    expect(rows[0].api_secret_enc).toMatch(/^v1:/);
    const ok = await signed(stack, { apiKey: created.api_key, apiSecret: created.api_secret }, 'GET', '/v1/balance');
    expect(ok.status).toBe(200);
  });

  it('rotation: the old secret stops working at once, the new one works', async () => {
    const m = await createMerchant(stack);
    expect((await signed(stack, m, 'GET', '/v1/balance')).status).toBe(200);
    const rotated = await rpc<RotateSecretResponse>((cb) => stack.clients.merchants.rotateSecret({ merchant_id: m.merchantId }, stack.operator, cb));
    expect(rotated.api_secret).not.toBe(m.apiSecret);
    const old = await signed(stack, m, 'GET', '/v1/balance');
    expect(old.status).toBe(401);
    const fresh = await signed(stack, { apiKey: rotated.api_key, apiSecret: rotated.api_secret }, 'GET', '/v1/balance');
    expect(fresh.status).toBe(200);
    const oldKeyNewSecret = await signed(stack, { apiKey: m.apiKey, apiSecret: rotated.api_secret }, 'GET', '/v1/balance');
    expect(oldKeyNewSecret.status).toBe(401);
  });

  it('rotation replaces the API key too: the new key with the old secret is an invalid signature, the old key is unknown', async () => {
    const m = await createMerchant(stack);
    const rotated = await rpc<RotateSecretResponse>((cb) => stack.clients.merchants.rotateSecret({ merchant_id: m.merchantId }, stack.operator, cb));
    expect(rotated.api_key).toMatch(/^pk_/);
    expect(rotated.api_key).not.toBe(m.apiKey);
    const newKeyOldSecret = await signed(stack, { apiKey: rotated.api_key, apiSecret: m.apiSecret }, 'GET', '/v1/balance');
    expect(newKeyOldSecret.status).toBe(401);
    expect(newKeyOldSecret.body).toEqual({ error: { code: 'invalid_signature', message: expect.any(String) } });
    const oldKey = await signed(stack, m, 'GET', '/v1/balance');
    expect(oldKey.body).toEqual({ error: { code: 'invalid_api_key', message: expect.any(String) } });
    const newKeyNewSecret = await signed(stack, { apiKey: rotated.api_key, apiSecret: rotated.api_secret }, 'GET', '/v1/balance');
    expect(newKeyNewSecret.status).toBe(200);
    expect(newKeyNewSecret.body).toEqual({ available: '0', held: '0', currency: 'USDT' });
  });

  it('creating merchants needs the operator token', async () => {
    await expect(rpc((cb) => stack.clients.merchants.createMerchant({ name: 'x' }, new grpc.Metadata(), cb))).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    const md = new grpc.Metadata();
    md.set('authorization', 'Bearer op_wrong_token_000000000000');
    await expect(rpc((cb) => stack.clients.merchants.createMerchant({ name: 'x' }, md, cb))).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
  });

  it('refuses a non-HTTPS webhook URL', async () => {
    await expect(rpc((cb) => stack.clients.merchants.createMerchant({ name: 'x', webhook_url: 'http://shop.example' }, stack.operator, cb))).rejects.toMatchObject({
      code: grpc.status.FAILED_PRECONDITION,
    });
  });
});
