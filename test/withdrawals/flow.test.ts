import { startStack, createMerchant, eventually, signed, rpc, type Stack, type MerchantCredentials } from '../support/stack';
import type { Merchant } from '../../src/grpc/generated/chainpay/v1/merchants';
import type { ListWithdrawalsResponse, Withdrawal } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { addressOf, advance, balance, DAY_S, expectLedgerExact, fund, mine, stackRpcs, waitBroadcast, waitForWithdrawal, WD_ENV, whitelist, type Body, type Rpcs } from './support';

describe('withdrawal flow on devnet', () => {
  let stack: Stack;
  let r: Rpcs;
  let m: MerchantCredentials;
  const payee = addressOf('TRC20', 'flow-payee');

  const events = async (uuid: string): Promise<string[]> => {
    const rows = await stack.daemon.orm.em.fork().execute<{ type: string }[]>('select type from outbox_events where aggregate_id = ? order by seq', [uuid]);
    return rows.map((e) => e.type);
  };
  const audit = async (uuid: string): Promise<string[]> => {
    const rows = await stack.daemon.orm.em.fork().execute<{ action: string }[]>('select action from audit_log where target = ? order by at', [`withdrawal:${uuid}`]);
    return rows.map((e) => e.action);
  };
  const accountSum = async (account: string): Promise<string> => {
    const rows = await stack.daemon.orm.em.fork().execute<{ s: string }[]>(`select coalesce(sum(amount), 0)::float8::text as s from ledger_entries where account = ?`, [account]);
    return rows[0]!.s;
  };

  beforeAll(async () => {
    stack = await startStack({ env: WD_ENV });
    r = stackRpcs(stack);
    m = await createMerchant(stack);
    await fund(r, m.merchantId, '300');
    await whitelist(r, m.merchantId, 'TRC20', payee);
    await advance(r, DAY_S);
    // Small caps so the review path is reachable: per withdrawal 50, rolling 24 h 100.
    await rpc<Merchant>((cb) => stack.clients.merchants.updateMerchant({ merchant_id: m.merchantId, cap_per_withdrawal: '50', cap_daily: '100' }, stack.operator, cb));
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('within the caps: processing at once, tx_hash once broadcast, completed with completed_at at the required confirmations', async () => {
    const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '10.5', reference: 'w-1' });
    expect(res.status).toBe(201);
    const w: Body = res.body;
    expect(Object.keys(w).sort()).toEqual(
      ['address', 'amount', 'completed_at', 'created_at', 'failure_reason', 'livemode', 'net_payout', 'network', 'network_fee', 'reference', 'rejection_reason', 'status', 'tx_hash', 'uuid'].sort(),
    );
    // Devnet: a test object (DESIGN.md, Embedded defaults).
    expect(w).toMatchObject({
      status: 'processing',
      network: 'TRC20',
      address: payee,
      amount: '10.5',
      network_fee: '1',
      net_payout: '9.5',
      reference: 'w-1',
      rejection_reason: null,
      failure_reason: null,
      completed_at: null,
      livemode: false,
    });
    expect(await balance(stack, m)).toEqual({ available: '289.5', held: '10.5' });

    await waitBroadcast(stack.daemon.orm, w.uuid);
    const sent = (await signed(stack, m, 'GET', `/v1/withdrawals/${w.uuid}`)).body;
    expect(sent.tx_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(sent.status).toBe('processing');
    expect(sent.completed_at).toBeNull();

    await mine(r, 1); // in a block: 1 of 3 confirmations
    await new Promise((res) => setTimeout(res, 600));
    expect((await signed(stack, m, 'GET', `/v1/withdrawals/${w.uuid}`)).body.status).toBe('processing');
    await mine(r, 2);
    const done = await waitForWithdrawal(stack, m, w.uuid, 'completed');
    expect(done.tx_hash).toBe(sent.tx_hash);
    expect(Date.parse(done.completed_at)).toBeGreaterThanOrEqual(Date.parse(done.created_at));
    expect(await balance(stack, m)).toEqual({ available: '289.5', held: '0' });
    expect(await accountSum('chain:TRC20:payouts')).toBe('9.5');
    expect(await events(w.uuid)).toEqual(['withdrawal.processing', 'withdrawal.completed']);

    // Repeating the reference returns the original (200), whatever the body says now.
    const again = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '99', reference: 'w-1' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(done);
    await expectLedgerExact(stack.daemon.orm);
  });

  it('above the per-withdrawal cap: review (held) until approved, then paid out', async () => {
    const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '60' });
    expect(res.status).toBe(201);
    const w: Body = res.body;
    expect(w).toMatchObject({ status: 'review', tx_hash: null, reference: null });
    expect(await balance(stack, m)).toEqual({ available: '229.5', held: '60' });
    await mine(r, 5);
    await new Promise((res) => setTimeout(res, 400));
    expect((await signed(stack, m, 'GET', `/v1/withdrawals/${w.uuid}`)).body).toMatchObject({ status: 'review', tx_hash: null });

    const listed = await rpc<ListWithdrawalsResponse>((cb) => r.withdrawals.listWithdrawals({ merchant_id: '', status: 'review', limit: 0 }, r.operator, cb));
    expect(listed.withdrawals.map((x) => x.uuid)).toEqual([w.uuid]);

    const approved = await rpc<Withdrawal>((cb) => stack.clients.operator.approveWithdrawal({ uuid: w.uuid }, r.operator, cb));
    expect(approved.status).toBe('processing');
    const err = await rpc((cb) => stack.clients.operator.approveWithdrawal({ uuid: w.uuid }, r.operator, cb)).catch((e: { metadata: { get(k: string): unknown[] } }) => e);
    expect((err as { metadata: { get(k: string): unknown[] } }).metadata.get('chainpay-error-code')).toEqual(['withdrawal_not_in_review']);

    await waitBroadcast(stack.daemon.orm, w.uuid);
    await mine(r, 3);
    const done = await waitForWithdrawal(stack, m, w.uuid, 'completed');
    expect(done.net_payout).toBe('59');
    expect(await balance(stack, m)).toEqual({ available: '229.5', held: '0' });
    expect(await events(w.uuid)).toEqual(['withdrawal.review', 'withdrawal.processing', 'withdrawal.completed']);
    expect(await audit(w.uuid)).toEqual(['withdrawal.approve']);
  });

  it('above the rolling daily cap: review; rejected with a reason, the hold returns to the balance', async () => {
    // 10.5 + 60 count in the last 24 h: 30 more exceeds the daily cap of 100.
    const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '30' });
    const w: Body = res.body;
    expect(w.status).toBe('review');
    expect(await balance(stack, m)).toEqual({ available: '199.5', held: '30' });

    const rejected = await rpc<Withdrawal>((cb) => stack.clients.operator.rejectWithdrawal({ uuid: w.uuid, reason: 'unusual destination' }, r.operator, cb));
    expect(rejected).toMatchObject({ status: 'rejected', rejection_reason: 'unusual destination' });
    expect(rejected.tx_hash).toBeUndefined();
    expect(await balance(stack, m)).toEqual({ available: '229.5', held: '0' });
    const got = (await signed(stack, m, 'GET', `/v1/withdrawals/${w.uuid}`)).body;
    expect(got).toMatchObject({ status: 'rejected', rejection_reason: 'unusual destination', completed_at: null, tx_hash: null });
    expect(await events(w.uuid)).toEqual(['withdrawal.review', 'withdrawal.rejected']);
    expect(await audit(w.uuid)).toEqual(['withdrawal.reject']);
    const late = await rpc((cb) => stack.clients.operator.approveWithdrawal({ uuid: w.uuid }, r.operator, cb)).catch((e: { code: number }) => e);
    expect((late as { code: number }).code).toBe(10); // ABORTED -> 409

    // A rejected withdrawal no longer counts: 29.5 fits beside 70.5 of the last 24 h.
    const fits = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '29.5' });
    expect(fits.body.status).toBe('processing');
    // The window rolls with the daemon clock: a day later 50 (the per-withdrawal cap) fits again.
    await advance(r, DAY_S);
    const nextDay = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '50' });
    expect(nextDay.body.status).toBe('processing');
    // `fits` may have been signed before the day passed: its devnet TRC20 transaction then expired
    // unsent (valid 60 s of chain time) and is signed anew once a final block shows it; blocks are
    // mined until both are confirmed, as the chain would go on.
    await eventually(
      async () => {
        await mine(r, 1);
        const done = await Promise.all([fits.body.uuid, nextDay.body.uuid].map(async (uuid) => (await signed(stack, m, 'GET', `/v1/withdrawals/${uuid}`)).body?.status));
        return done.every((status) => status === 'completed') ? true : undefined;
      },
      30_000,
      'both withdrawals completed',
    );
    expect(await balance(stack, m)).toEqual({ available: '150', held: '0' });
    await expectLedgerExact(stack.daemon.orm);
  });

  it('another merchant sees none of it (404)', async () => {
    const other = await createMerchant(stack, { name: 'Other shop' });
    const mine = await rpc<ListWithdrawalsResponse>((cb) => r.withdrawals.listWithdrawals({ merchant_id: m.merchantId, limit: 0 }, r.operator, cb));
    const res = await signed(stack, other, 'GET', `/v1/withdrawals/${mine.withdrawals[0]!.uuid}`);
    expect(res.status).toBe(404);
    expect((await signed(stack, other, 'GET', '/v1/balance')).body).toEqual({ available: '0', held: '0', currency: 'USDT' });
  });
});
