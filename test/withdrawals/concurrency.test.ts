import { status, type ServiceError } from '@grpc/grpc-js';
import type { CreateWithdrawalResponse } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { startStack, createMerchant, signed, eventually, rpc, type Stack, type MerchantCredentials } from '../support/stack';
import { addressOf, advance, balance, DAY_S, expectLedgerExact, fund, mine, stackRpcs, WD_ENV, whitelist, type Rpcs } from './support';

describe('withdrawals under concurrency', () => {
  let stack: Stack;
  let r: Rpcs;
  const payee = addressOf('TRC20', 'concurrent-payee');

  async function merchantWith(amount: string): Promise<MerchantCredentials> {
    const m = await createMerchant(stack);
    await fund(r, m.merchantId, amount);
    await whitelist(r, m.merchantId, 'TRC20', payee);
    return m;
  }

  /** Mine until no withdrawal is processing any more (payouts are broadcast as they get signed). */
  async function settleAll(): Promise<void> {
    await eventually(
      async () => {
        await mine(r, 1);
        const rows = await stack.daemon.orm.em.fork().execute<{ n: string }[]>(`select count(*) as n from withdrawals where status = 'processing'`);
        return rows[0]!.n === '0' ? true : undefined;
      },
      30_000,
      'every payout to complete',
    );
  }

  let a: MerchantCredentials;
  let b: MerchantCredentials;
  let c: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack({ env: WD_ENV });
    r = stackRpcs(stack);
    a = await merchantWith('100');
    b = await merchantWith('50');
    c = await merchantWith('50');
    await advance(r, DAY_S);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('100 concurrent withdrawals against one balance never overdraw; refused ones leave nothing behind', async () => {
    // Straight to the daemon over gRPC: a loaded test machine must not turn the gateway's deadline into a failure.
    const md = r.forMerchant(a.merchantId);
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        rpc<CreateWithdrawalResponse>((cb) => r.withdrawals.createWithdrawal({ network: 'TRC20', address: payee, amount: '3', reference: `c-${i}` }, md, cb)).then(
          (res) => ({ created: res.created, code: null }),
          (err: ServiceError) => ({ created: false, code: `${err.code} ${String(err.metadata.get('chainpay-error-code')[0])}` }),
        ),
      ),
    );
    expect(results.filter((x) => x.created)).toHaveLength(33); // 33 × 3 = 99 of 100
    expect(new Set(results.filter((x) => !x.created).map((x) => x.code))).toEqual(new Set([`${status.FAILED_PRECONDITION} insufficient_balance`]));
    expect(await balance(stack, a)).toEqual({ available: '1', held: '99' });
    const rows = await stack.daemon.orm.em.fork().execute<{ n: string }[]>('select count(*) as n from withdrawals where merchant_id = ?', [a.merchantId]);
    expect(rows[0]!.n).toBe('33');
    await expectLedgerExact(stack.daemon.orm);

    await settleAll();
    expect(await balance(stack, a)).toEqual({ available: '1', held: '0' });
    const paid = await stack.daemon.orm.em.fork().execute<{ n: string; s: string }[]>(`select count(*) as n, sum(amount)::float8::text as s from ledger_entries where account = 'chain:TRC20:hot'`);
    expect(paid[0]).toEqual({ n: '33', s: '66' }); // 33 × (3 − fee 1)
    await expectLedgerExact(stack.daemon.orm);
  });

  it('20 concurrent repeats of one reference make one withdrawal (one 201, the rest 200 with the same one)', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => signed(stack, b, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '7', reference: 'same-ref' })));
    expect(results.map((x) => x.status).sort((x, y) => x - y)).toEqual([...Array(19).fill(200), 201]);
    expect(new Set(results.map((x) => x.body.uuid)).size).toBe(1);
    expect(await balance(stack, b)).toEqual({ available: '43', held: '7' });
    const rows = await stack.daemon.orm.em.fork().execute<{ n: string }[]>('select count(*) as n from withdrawals where merchant_id = ?', [b.merchantId]);
    expect(rows[0]!.n).toBe('1');
    await settleAll();
    expect(await balance(stack, b)).toEqual({ available: '43', held: '0' });
    await expectLedgerExact(stack.daemon.orm);
  });

  it('concurrent withdrawals crossing the daily cap: exactly those past it wait in review, and the books hold', async () => {
    await rpc((cb) => stack.clients.merchants.updateMerchant({ merchant_id: c.merchantId, cap_per_withdrawal: '100', cap_daily: '20' }, stack.operator, cb));
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => signed(stack, c, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '5', reference: `cap-${i}` })));
    // 50 covers 10 of 12; the first 4 (20) are within the daily cap, the next 6 go to review.
    const statuses = results.map((x) => (x.status === 201 ? x.body.status : `${x.status} ${x.body.error?.code}`));
    expect(statuses.filter((s) => s === 'processing')).toHaveLength(4);
    expect(statuses.filter((s) => s === 'review')).toHaveLength(6);
    expect(statuses.filter((s) => s === '422 insufficient_balance')).toHaveLength(2);
    expect(await balance(stack, c)).toEqual({ available: '0', held: '50' });
    await expectLedgerExact(stack.daemon.orm);
  });
});
