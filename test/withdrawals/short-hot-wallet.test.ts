import type { Withdrawal as GrpcWithdrawal } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { createMerchant, eventually, rpc, signed, startStack, type MerchantCredentials, type Stack } from '../support/stack';
import { captureLogger, type LogLine } from '../webhooks/support';
import { addressOf, advance, balance, DAY_S, expectLedgerExact, fund, mine, stackRpcs, waitForWithdrawal, WD_ENV, whitelist, type Body, type Rpcs } from './support';

jest.setTimeout(60_000);

/**
 * Issue 45 item 7 on devnet: the hot wallet holds DEVNET_HOT_WALLET_USDT (5) plus what is sent to it.
 * A withdrawal it cannot pay stays processing, nothing signed, its amount held, with one operator
 * alert naming the network, the hot wallet and the USDT to send; once the wallet is funded it is
 * paid. A second payout the wallet can pay only without the first one in flight waits too (the host
 * counts the payouts signed before it), and an operator may reject a waiting one.
 */
describe('a devnet hot wallet short of USDT (TRC20)', () => {
  let stack: Stack;
  let r: Rpcs;
  let m: MerchantCredentials;
  let lines: LogLine[];
  const payee = addressOf('TRC20', 'short-wallet-payee');

  const row = async (uuid: string) =>
    (await stack.daemon.orm.em.fork().execute<{ signed_raw: string | null; failure_reason: string | null }[]>('select signed_raw, failure_reason from withdrawals where uuid = ?', [uuid]))[0]!;
  const alerts = (uuid: string) => lines.filter((l) => l.withdrawalUuid === uuid && l.alert === 'hot_wallet_underfunded' && l.level === 50);
  /** The row's failure_reason says why it waits (the operator's view; REST shows a reason once failed only). */
  const waiting = (uuid: string): Promise<Body> =>
    eventually(
      async () => {
        const why = (await row(uuid)).failure_reason ?? '';
        if (!why.startsWith('needs_operator: hot_wallet_underfunded: ')) return undefined;
        const w = (await signed(stack, m, 'GET', `/v1/withdrawals/${uuid}`)).body;
        return w.status === 'processing' ? { ...w, failure_reason: why } : undefined;
      },
      15_000,
      `withdrawal ${uuid} to wait for liquidity`,
    );

  beforeAll(async () => {
    const captured = captureLogger();
    lines = captured.lines;
    stack = await startStack({ logger: captured.logger, env: { ...WD_ENV, DEVNET_HOT_WALLET_USDT: '5', PAYOUT_POLL_INTERVAL_MS: '200' } });
    r = stackRpcs(stack);
    m = await createMerchant(stack);
    await fund(r, m.merchantId, '300');
    await whitelist(r, m.merchantId, 'TRC20', payee);
    await advance(r, DAY_S);
  });
  afterAll(async () => {
    if (process.env.WD_DEBUG) console.log(lines.filter((l) => l.level >= 40).slice(0, 10));
    await stack?.stop();
  });

  it('waits in processing with an alert naming what to send, signs nothing, and is paid once the wallet is funded', async () => {
    const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '50' });
    expect(res.status).toBe(201);
    const uuid = res.body.uuid as string;
    const w = await waiting(uuid);
    // net_payout 49 (fee 1); the wallet holds 5: 44 USDT to send.
    expect(w).toMatchObject({ status: 'processing', tx_hash: null, rejection_reason: null, completed_at: null });
    expect((await signed(stack, m, 'GET', `/v1/withdrawals/${uuid}`)).body.failure_reason).toBeNull();
    expect(w.failure_reason).toMatch(/^needs_operator: hot_wallet_underfunded: TRC20 hot wallet (T\w+) cannot pay this payout: send 44 USDT to \1 on TRC20 \(5 USDT held, 49 needed\)/);
    expect((await row(uuid)).signed_raw).toBeNull();
    expect(await balance(stack, m)).toEqual({ available: '250', held: '50' });

    // Several polls later: still waiting, still nothing signed, the alert logged once (not every poll).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await signed(stack, m, 'GET', `/v1/withdrawals/${uuid}`)).body.status).toBe('processing');
    expect((await row(uuid)).signed_raw).toBeNull();
    const alert = alerts(uuid);
    expect(alert).toHaveLength(1);
    expect(alert[0]).toMatchObject({ network: 'TRC20', code: 'hot_wallet_underfunded', send: '44 USDT', token_short: '44', gas_short: null });
    const hot = alert[0]!.wallet as string;
    expect(w.failure_reason).toContain(hot);

    // The operator sends what the alert says (devnet: a transfer to the hot wallet): it is paid.
    await rpc((cb) => r.devnet.pay({ network: 'TRC20', to: hot, amount: '100' }, r.operator, cb));
    await eventually(async () => ((await row(uuid)).signed_raw ? true : undefined), 10_000, 'the payout to be signed');
    await eventually(
      async () => {
        await mine(r, 1);
        const got = (await signed(stack, m, 'GET', `/v1/withdrawals/${uuid}`)).body;
        return got.status === 'completed' ? got : undefined;
      },
      15_000,
      'the payout to complete',
    );
    const done = await waitForWithdrawal(stack, m, uuid, 'completed');
    expect(done.failure_reason).toBeNull();
    expect(await balance(stack, m)).toEqual({ available: '250', held: '0' });
    await expectLedgerExact(stack.daemon.orm);
  });

  it('counts the payouts signed before it: a second one the wallet cannot also pay waits; an operator may reject it', async () => {
    // The wallet now holds 5 + 100 - 49 = 56. Two payouts of 30 (amount 31, fee 1): the first is signed, the second waits.
    const a = (await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '31' })).body;
    await eventually(async () => ((await row(a.uuid)).signed_raw ? true : undefined), 10_000, 'the first payout to be signed');
    const b = (await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '31' })).body;
    const w = await waiting(b.uuid);
    expect(w.failure_reason).toContain('send 4 USDT');
    expect((await row(b.uuid)).signed_raw).toBeNull();

    const rejected = await rpc<GrpcWithdrawal>((cb) => stack.clients.operator.rejectWithdrawal({ uuid: b.uuid, reason: 'hot wallet empty' }, r.operator, cb));
    expect(rejected.status).toBe('rejected');
    expect((await row(b.uuid)).signed_raw).toBeNull();
    await mine(r, 4);
    await waitForWithdrawal(stack, m, a.uuid, 'completed');
    expect(await balance(stack, m)).toEqual({ available: '219', held: '0' });
    await expectLedgerExact(stack.daemon.orm);
  });
});
