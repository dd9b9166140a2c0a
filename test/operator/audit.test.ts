import { createMerchant, signed, type MerchantCredentials, type Stack, startStack } from '../support/stack';
import { addressOf, advance, DAY_S, fund, stackRpcs, whitelist, WD_ENV } from '../withdrawals/support';
import { cli, cliJson } from './support';

interface Entry {
  actor: string;
  action: string;
  target: string;
  after_json: string;
}

/** Who acted, as `chainpay audit` reports it: CHAINPAY_OPERATOR_NAME travels as x-operator-name. */
describe('operator plane: the audit names the person (CHAINPAY_OPERATOR_NAME)', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  const payee = addressOf('TRC20', 'audit-payee');
  beforeAll(async () => {
    stack = await startStack({ env: WD_ENV });
    m = await createMerchant(stack);
    const r = stackRpcs(stack);
    await fund(r, m.merchantId, '100');
    await whitelist(r, m.merchantId, 'TRC20', payee);
    await advance(r, DAY_S);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('set-caps and approve as alice, reject as bob: `chainpay audit` shows each name', async () => {
    const alice = { CHAINPAY_OPERATOR_NAME: 'alice' };
    await cliJson(stack, ['merchant', 'set-caps', '--merchant', m.merchantId, '--per-withdrawal', '10', '--daily', '40'], alice);
    const big = (await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '20' })).body;
    const bigger = (await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '30' })).body;
    expect([big.status, bigger.status]).toEqual(['review', 'review']);
    expect((await cliJson(stack, ['withdrawals', 'approve', big.uuid], alice)).status).toBe('processing');
    expect((await cliJson(stack, ['withdrawals', 'reject', bigger.uuid, '--reason', 'too large'], { CHAINPAY_OPERATOR_NAME: 'bob' })).status).toBe('rejected');

    const { entries } = await cliJson<{ entries: Entry[] }>(stack, ['audit']);
    const byAction = (action: string, target: string): Entry | undefined => entries.find((e) => e.action === action && e.target === target);
    expect(byAction('merchant.update', `merchant:${m.merchantId}`)).toMatchObject({ actor: 'operator:alice' });
    expect(JSON.parse(byAction('merchant.update', `merchant:${m.merchantId}`)!.after_json)).toMatchObject({ cap_per_withdrawal: '10', cap_daily: '40' });
    expect(entries.filter((e) => e.target.includes(big.uuid)).map((e) => `${e.action} ${e.actor}`)).toEqual(['withdrawal.approve operator:alice']);
    expect(entries.filter((e) => e.target.includes(bigger.uuid)).map((e) => `${e.action} ${e.actor}`)).toEqual(['withdrawal.reject operator:bob']);

    // The human table shows the name too.
    const human = await cli(stack, ['audit', '--limit', '5']);
    expect(human.code).toBe(0);
    expect(human.out).toMatch(/operator:alice\s+withdrawal\.approve/);
  });
});
