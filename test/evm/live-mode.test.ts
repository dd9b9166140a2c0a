import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { status, type ServiceError } from '@grpc/grpc-js';
import type { Address } from 'viem';
import { FixedClockError } from '../../src/actors/daemon-clock';
import { toBaseUnits } from '../../src/chains/amount';
import type { ListNetworksResponse } from '../../src/grpc/generated/chainpay/v1/networks';
import { cli } from '../operator/support';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { spawnTs } from '../support/processes';
import { listServices } from '../support/reflection';
import { createMerchant, rpc, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { addressOf, balance, stackRpcs, whitelist } from '../withdrawals/support';
import { startHardhatNode, type HardhatNode } from './support/hardhat-node';
import { TestChain } from './support/test-chain';

jest.setTimeout(120_000);

/**
 * Issue 31's exploit, on a live daemon: POLYGON on a real `hardhat node`, nothing else set (the
 * README's `POLYGON_RPC_URL=… npm start`). Before, the devnet controls stayed on beside the live
 * chain: `devnet pay` on TRC20 credited 500 simulated USDT, `devnet advance-time` skipped the
 * whitelist cooldown, and a withdrawal paid out real tokens. Now every step is refused.
 */
describe('live mode: no devnet control beside a real chain', () => {
  let node: HardhatNode;
  let chain: TestChain;
  let token: Address;
  let db: TestDatabase;
  let stack: Stack;
  let m: MerchantCredentials;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-live-mode-'));
  const payee = addressOf('POLYGON', 'live-mode payee');
  const tronPayee = addressOf('TRC20', 'live-mode payee');

  const grpcError = (p: Promise<unknown>): Promise<ServiceError> =>
    p.then(
      () => {
        throw new Error('expected a refusal');
      },
      (e: ServiceError) => e,
    );

  beforeAll(async () => {
    node = await startHardhatNode();
    chain = new TestChain(node.url);
    token = await chain.deployToken(6);
    await chain.mint(token, chain.funder.address, 10n ** 12n);
    db = await createTestDatabase('cp_live_mode');
    stack = await startStack({
      database: db,
      dataDir,
      env: { POLYGON_RPC_URL: node.url, POLYGON_CHAIN_ID: '31337', POLYGON_TOKEN_ADDRESS: token, POLYGON_CONFIRMATIONS: '2', POLYGON_POLL_INTERVAL_MS: '100' },
    });
    m = await createMerchant(stack);
    // Real funds: a POLYGON invoice paid on the node.
    const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '100', network: 'POLYGON' })).body;
    expect(inv.livemode).toBe(true);
    await chain.transfer(token, inv.address, toBaseUnits(inv.pay_amount, 6));
    await chain.mine(1);
    await waitForStatus(stack, m, inv.uuid, 'paid', 20_000);
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await db?.drop();
    await node?.stop();
  });

  it('GET /v1/networks: only the network with an RPC URL, and livemode true', async () => {
    const body = (await (await fetch(`${stack.baseUrl}/v1/networks`)).json()) as { networks: { code: string }[]; livemode: boolean };
    expect(body.livemode).toBe(true);
    expect(body.networks.map((n) => n.code)).toEqual(['POLYGON']);
    // The operator's list with inactive networks: the others are there, inactive, and live like the daemon.
    const all = await rpc<ListNetworksResponse>((cb) => stack.clients.networks.listNetworks({ include_inactive: true }, stack.operator, cb));
    expect(all.livemode).toBe(true);
    expect(all.networks.map((n) => [n.code, n.active, n.chain_mode])).toEqual([
      ['TRC20', false, 'live'],
      ['BEP20', false, 'live'],
      ['TON', false, 'live'],
      ['POLYGON', true, 'live'],
      ['ARBITRUM', false, 'live'],
      ['SOLANA', false, 'live'],
    ]);
    // A disabled network cannot be switched on at run time: it has no chain here.
    const on = await grpcError(rpc((cb) => stack.clients.networks.updateNetworkFees({ code: 'TRC20', active: true }, stack.operator, cb)));
    expect(on.code).toBe(status.FAILED_PRECONDITION);
    expect(on.details).toMatch(/TRC20 has no chain in this daemon \(live mode without TRC20_RPC_URL\)/);
  });

  it('DevnetService is not served: pay, mine, reorg and advance-time are UNIMPLEMENTED; the CLI says the daemon is live', async () => {
    const d = stack.clients.devnet;
    const calls = [
      rpc((cb) => d.pay({ network: 'TRC20', to: tronPayee, amount: '500' }, stack.operator, cb)),
      rpc((cb) => d.mine({ network: 'TRC20', blocks: 20 }, stack.operator, cb)),
      rpc((cb) => d.reorg({ network: 'POLYGON', depth: 1 }, stack.operator, cb)),
      rpc((cb) => d.advanceTime({ seconds: '86401' }, stack.operator, cb)),
    ];
    for (const call of calls) expect((await grpcError(call)).code).toBe(status.UNIMPLEMENTED);
    // Not even listed: server reflection names the services served.
    const services = await listServices(stack.grpcAddress);
    expect(services).toContain('chainpay.v1.InvoiceService');
    expect(services).not.toContain('chainpay.v1.DevnetService');
    const pay = await cli(stack, ['devnet', 'pay', '--network', 'TRC20', '--to', tronPayee, '--amount', '500']);
    expect(pay.code).toBe(1);
    expect(pay.err).toMatch(/devnet_unavailable: the daemon runs in live mode: devnet controls \(pay, mine, reorg, advance-time, reset-time\) do not exist there/);
    const skip = await cli(stack, ['devnet', 'advance-time', '--seconds', '86401']);
    expect(skip.code).toBe(1);
    expect(skip.err).toMatch(/devnet_unavailable/);
    // The daemon's own clock is real time: nothing in the process can move it either.
    expect(() => stack.daemon.clock.advance(86_401_000)).toThrow(FixedClockError);
    expect(Math.abs(stack.daemon.clock.now().getTime() - Date.now())).toBeLessThan(5_000);
  });

  it('TRC20 is disabled: invoices and withdrawals on it are refused with 422, the checkout cannot choose it', async () => {
    const inv = await signed(stack, m, 'POST', '/v1/invoices', { amount: '500', network: 'TRC20' });
    expect(inv.status).toBe(422);
    expect(inv.body.error).toMatchObject({ code: 'unknown_network', field: 'network', message: 'TRC20 is not enabled on this service; network must be one of POLYGON' });

    const open = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '5' })).body;
    expect(open.livemode).toBe(true);
    const set = await signed(stack, m, 'POST', `/v1/invoices/${open.uuid}/network`, { network: 'TRC20' });
    expect(set.status).toBe(422);
    expect(set.body.error.code).toBe('unknown_network');
    const chosen = await fetch(`${stack.baseUrl}/pay/${open.uuid}/network`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ network: 'TRC20' }) });
    expect(chosen.status).toBe(422);
    expect(((await chosen.json()) as { error: { code: string } }).error.code).toBe('unknown_network');

    const wd = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: tronPayee, amount: '99.8' });
    expect(wd.status).toBe(422);
    expect(wd.body.error).toMatchObject({ code: 'unknown_network', field: 'network' });
    const listed = await grpcError(whitelist(stackRpcs(stack), m.merchantId, 'TRC20', tronPayee));
    expect(listed.code).toBe(status.FAILED_PRECONDITION);
    expect(await balance(stack, m)).toEqual({ available: '100', held: '0' });
  });

  it('the 24-hour whitelist cooldown cannot be skipped: a withdrawal to a new address is refused, and stays refused', async () => {
    const entry = await whitelist(stackRpcs(stack), m.merchantId, 'POLYGON', payee);
    expect(new Date(entry.usable_at).getTime() - Date.now()).toBeGreaterThan(86_000_000);
    const first = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'POLYGON', address: payee, amount: '99.8' });
    expect(first.status).toBe(422);
    expect(first.body.error).toMatchObject({ code: 'address_in_cooldown', field: 'address' });
    await grpcError(rpc((cb) => stack.clients.devnet.advanceTime({ seconds: '86401' }, stack.operator, cb)));
    const again = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'POLYGON', address: payee, amount: '99.8' });
    expect(again.status).toBe(422);
    expect(again.body.error.code).toBe('address_in_cooldown');
    expect(await balance(stack, m)).toEqual({ available: '100', held: '0' });
    expect(await stack.daemon.orm.em.fork().execute(`select uuid from withdrawals`)).toEqual([]);
  });

  // Last: it stops the live daemon.
  it('the database remembers live: a devnet daemon refuses to start on it (exit 78), saying why', async () => {
    await stack.stop();
    stack = undefined as unknown as Stack;
    const p = spawnTs('src/main.ts', { DATABASE_URL: db.url, DATA_DIR: dataDir, GRPC_PORT: '0' });
    expect(await p.exited()).toBe(78);
    expect(p.output()).toMatch(
      /invalid configuration: CHAIN_MODE: this daemon would run on devnet \(no <CODE>_RPC_URL is set\), but its database was created in live mode and holds real payments, which simulated devnet money must never join; refusing to start/,
    );
    expect(p.output()).not.toMatch(/gRPC server listening/);
  });
});
