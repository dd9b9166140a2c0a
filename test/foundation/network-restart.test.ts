import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, rpc, type Stack } from '../support/stack';
import { createTestDatabase, type TestDatabase } from '../support/database';

jest.setTimeout(120_000);

type PublicNetwork = { code: string; withdrawal_fee: string; buyer_network_fee: string; min_invoice: string; required_confirmations: number };

async function publicNetworks(stack: Stack): Promise<PublicNetwork[]> {
  const res = await fetch(`${stack.baseUrl}/v1/networks`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { networks: PublicNetwork[] }).networks;
}

describe('network settings across restarts', () => {
  let db: TestDatabase;
  let dataDir: string;
  let stack: Stack | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-netrestart-'));
  });
  afterEach(async () => {
    await stack?.stop();
    stack = undefined;
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('a fee changed over gRPC and a deactivation survive a restart on the same database', async () => {
    stack = await startStack({ database: db, dataDir });
    await rpc((cb) => stack!.clients.networks.updateNetworkFees({ code: 'TRC20', withdrawal_fee: '2.75', buyer_network_fee: '1.5', required_confirmations: 21 }, stack!.operator, cb));
    await rpc((cb) => stack!.clients.networks.updateNetworkFees({ code: 'SOLANA', active: false }, stack!.operator, cb));
    await stack.stop();
    stack = undefined;

    stack = await startStack({ database: db, dataDir });
    const list = await publicNetworks(stack);
    const trc = list.find((n) => n.code === 'TRC20')!;
    expect(trc).toMatchObject({ withdrawal_fee: '2.75', buyer_network_fee: '1.5', required_confirmations: 21 });
    expect(list.map((n) => n.code)).not.toContain('SOLANA');
    // A restart that sets nothing writes nothing: the row's version is the one the two updates left.
    const rows = await stack.daemon.orm.em.fork().getConnection().execute(`select code, version from network_settings where code in ('TRC20', 'SOLANA') order by code`);
    expect(rows).toEqual([
      { code: 'SOLANA', version: 2 },
      { code: 'TRC20', version: 2 },
    ]);
  });

  it('a variable set in the environment wins at start, for that setting only; <CODE>_ENABLED sets active', async () => {
    stack = await startStack({ database: db, dataDir, env: { TRC20_WITHDRAWAL_FEE: '3.5', SOLANA_ENABLED: '1' } });
    const list = await publicNetworks(stack);
    const trc = list.find((n) => n.code === 'TRC20')!;
    expect(trc.withdrawal_fee).toBe('3.5');
    // Not set in the environment: the run-time values stay.
    expect(trc.buyer_network_fee).toBe('1.5');
    expect(trc.required_confirmations).toBe(21);
    expect(list.map((n) => n.code)).toContain('SOLANA');
    // Untouched networks keep their defaults.
    expect(list.find((n) => n.code === 'TON')!.withdrawal_fee).toBe('0.2');
  });
});
