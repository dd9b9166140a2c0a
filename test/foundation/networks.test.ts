import * as grpc from '@grpc/grpc-js';
import { startStack, rpc, type Stack } from '../support/stack';
import type { Network } from '../../src/grpc/generated/chainpay/v1/networks';
import { NetworkSettingsRepo } from '../../src/store/repos/network-settings';

describe('GET /v1/networks and live fees', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('is unsigned and returns exactly {networks: [...], livemode} with the spec fields and types; devnet: livemode false', async () => {
    const res = await fetch(`${stack.baseUrl}/v1/networks`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { networks: Record<string, unknown>[]; livemode: unknown };
    expect(Object.keys(body)).toEqual(['networks', 'livemode']);
    expect(body.livemode).toBe(false);
    expect(body.networks.map((n) => n.code)).toEqual(['TRC20', 'BEP20', 'TON', 'POLYGON', 'ARBITRUM', 'SOLANA']);
    for (const n of body.networks) {
      expect(Object.keys(n)).toEqual(['code', 'name', 'buyer_network_fee', 'withdrawal_fee', 'min_invoice', 'min_withdrawal', 'required_confirmations', 'deposit_mode']);
      for (const k of ['code', 'name', 'buyer_network_fee', 'withdrawal_fee', 'min_invoice', 'min_withdrawal', 'deposit_mode']) expect(typeof n[k]).toBe('string');
      for (const k of ['buyer_network_fee', 'withdrawal_fee', 'min_invoice', 'min_withdrawal']) expect(n[k]).toMatch(/^\d+(\.\d+)?$/);
      expect(Number.isInteger(n.required_confirmations)).toBe(true);
      expect(n.deposit_mode).toBe(n.code === 'TON' ? 'master_memo' : 'address_pool');
    }
  });

  it('reads through an EntityManager factory only when its cached rows are stale', async () => {
    const repo = new NetworkSettingsRepo(() => new Map(), 60_000);
    let forks = 0;
    const fork = () => {
      forks++;
      return stack.daemon.orm.em.fork();
    };
    const first = await repo.list(fork);
    expect(first.map((n) => n.code)).toEqual(['TRC20', 'BEP20', 'TON', 'POLYGON', 'ARBITRUM', 'SOLANA']);
    expect((await repo.get(fork, 'TON'))?.code).toBe('TON');
    expect(await repo.list(fork)).toEqual(first);
    expect(forks).toBe(1);
    repo.forget();
    expect(await repo.list(fork)).toEqual(first);
    expect(forks).toBe(2);
    // A plain EntityManager still works, as before.
    repo.forget();
    expect(await repo.list(stack.daemon.orm.em.fork())).toEqual(first);
  });

  it('a fee changed through gRPC shows up at once, without restart; the change is audited', async () => {
    const updated = await rpc<Network>((cb) =>
      stack.clients.networks.updateNetworkFees({ code: 'TRC20', withdrawal_fee: '2.75', buyer_network_fee: '1.5', required_confirmations: 21 }, stack.operator, cb),
    );
    expect(updated.withdrawal_fee).toBe('2.75');
    const body = (await (await fetch(`${stack.baseUrl}/v1/networks`)).json()) as { networks: Record<string, unknown>[] };
    const trc = body.networks.find((n) => n.code === 'TRC20')!;
    expect(trc.withdrawal_fee).toBe('2.75');
    expect(trc.buyer_network_fee).toBe('1.5');
    expect(trc.required_confirmations).toBe(21);
    const audit = await stack.daemon.orm.em.fork().getConnection().execute(`select action, target from audit_log where action = 'network.update'`);
    expect(audit).toEqual([{ action: 'network.update', target: 'network:TRC20' }]);
  });

  it('a deactivated network disappears from the public list', async () => {
    await rpc((cb) => stack.clients.networks.updateNetworkFees({ code: 'SOLANA', active: false }, stack.operator, cb));
    const body = (await (await fetch(`${stack.baseUrl}/v1/networks`)).json()) as { networks: { code: string }[] };
    expect(body.networks.map((n) => n.code)).not.toContain('SOLANA');
    await rpc((cb) => stack.clients.networks.updateNetworkFees({ code: 'SOLANA', active: true }, stack.operator, cb));
  });

  it('fee changes need the operator token and valid decimals', async () => {
    await expect(rpc((cb) => stack.clients.networks.updateNetworkFees({ code: 'TRC20', withdrawal_fee: '1' }, new grpc.Metadata(), cb))).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    await expect(rpc((cb) => stack.clients.networks.updateNetworkFees({ code: 'TRC20', withdrawal_fee: '-1' }, stack.operator, cb))).rejects.toMatchObject({ code: grpc.status.FAILED_PRECONDITION });
  });
});
