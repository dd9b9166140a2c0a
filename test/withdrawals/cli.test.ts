import { run } from '../../src/cli/main';
import { startStack, createMerchant, signed, type Stack, type MerchantCredentials } from '../support/stack';
import { addressOf, fund, mine, stackRpcs, waitBroadcast, waitForWithdrawal, WD_ENV, type Body } from './support';

describe('chainpay whitelist / withdrawals / balance against a real daemon', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  const payee = addressOf('TRC20', 'cli-payee');

  async function cli(...argv: string[]): Promise<Body> {
    let out = '';
    let err = '';
    const io = {
      env: { CHAINPAY_GRPC_ADDR: stack.grpcAddress, DATA_DIR: stack.dataDir },
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (err += s) },
    };
    const code = await run([...argv, '--json'], io);
    if (code !== 0) throw new Error(`chainpay ${argv.join(' ')} exited ${code}: ${err}`);
    return JSON.parse(out);
  }

  beforeAll(async () => {
    stack = await startStack({ env: WD_ENV });
    m = await createMerchant(stack);
    await fund(stackRpcs(stack), m.merchantId, '100');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('whitelists with a cooldown, sets caps, and approves or rejects what waits in review', async () => {
    const entry = await cli('whitelist', 'add', '--merchant', m.merchantId, '--network', 'TRC20', '--address', payee);
    expect(entry).toMatchObject({ merchant_id: m.merchantId, network: 'TRC20', address: payee });
    expect((await cli('whitelist', 'list', '--merchant', m.merchantId)).entries).toEqual([entry]);
    const early = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '20' });
    expect(early.body.error.code).toBe('address_in_cooldown');
    await cli('devnet', 'advance-time', '--seconds', String(24 * 3600));
    await cli('merchant', 'set-caps', '--merchant', m.merchantId, '--per-withdrawal', '15', '--daily', '40');

    const big = (await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '20' })).body;
    const bigger = (await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '30' })).body;
    expect([big.status, bigger.status]).toEqual(['review', 'review']);
    const inReview = await cli('withdrawals', 'list', '--merchant', m.merchantId, '--status', 'review');
    expect(inReview.withdrawals.map((w: Body) => w.uuid).sort()).toEqual([big.uuid, bigger.uuid].sort());
    expect(await cli('balance', '--merchant', m.merchantId)).toMatchObject({ available: '50', held: '50' });

    const rejected = await cli('withdrawals', 'reject', bigger.uuid, '--reason', 'too large for this shop');
    expect(rejected).toMatchObject({ status: 'rejected', rejection_reason: 'too large for this shop' });
    const approved = await cli('withdrawals', 'approve', big.uuid);
    expect(approved.status).toBe('processing');
    await waitBroadcast(stack.daemon.orm, big.uuid);
    await mine(stackRpcs(stack), 3);
    await waitForWithdrawal(stack, m, big.uuid, 'completed');
    expect(await cli('balance', '--merchant', m.merchantId)).toMatchObject({ available: '80', held: '0' });

    await cli('whitelist', 'remove', '--merchant', m.merchantId, '--network', 'TRC20', '--address', payee);
    expect((await cli('whitelist', 'list', '--merchant', m.merchantId)).entries).toEqual([]);
  });
});
