import type { Address } from 'viem';
import { toBaseUnits } from '../../src/chains/amount';
import { createMerchant, eventually, signed, startStack, type MerchantCredentials, type Stack } from '../support/stack';
import { polygonOnHardhat, testCodec } from '../evm/support/adapter';
import { startHardhatNode, type HardhatNode } from '../evm/support/hardhat-node';
import { TestChain } from '../evm/support/test-chain';
import { captureLogger, type LogLine } from '../webhooks/support';
import { balance, expectLedgerExact, stackRpcs, waitForWithdrawal, whitelist, type Body } from './support';

jest.setTimeout(90_000);

/**
 * Issue 45 item 7 on a real `hardhat node` (POLYGON live): a hot wallet short of USDT, then of POL
 * for gas. Each withdrawal stays processing (nothing signed, nothing sent, its amount held) with one
 * operator alert naming the network, the hot wallet and what to send; once the wallet is funded it
 * is paid. Before this rule both failed and released the hold (payout_insufficient_token / _gas).
 */
describe('a hot wallet short of USDT or gas (hardhat, POLYGON live)', () => {
  let node: HardhatNode;
  let chain: TestChain;
  let token: Address;
  let stack: Stack;
  let m: MerchantCredentials;
  let lines: LogLine[];
  const hot = testCodec().hotWallet().address as Address;
  const payee = testCodec().sampleAddress('short-wallet payee') as Address;

  const row = async (uuid: string) =>
    (
      await stack.daemon.orm.em
        .fork()
        .execute<{ signed_raw: string | null; failure_reason: string | null; status: string }[]>('select signed_raw, failure_reason, status from withdrawals where uuid = ?', [uuid])
    )[0]!;
  const alerts = (uuid: string) => lines.filter((l) => l.withdrawalUuid === uuid && l.alert === 'hot_wallet_underfunded' && l.level === 50);
  const waiting = (uuid: string): Promise<{ failure_reason: string }> =>
    eventually(
      async () => {
        const r = await row(uuid);
        return r.status === 'processing' && (r.failure_reason ?? '').startsWith('needs_operator: hot_wallet_underfunded: ') ? { failure_reason: r.failure_reason! } : undefined;
      },
      20_000,
      `withdrawal ${uuid} to wait for liquidity`,
    );
  /** Automine: the payout's block is mined at once; three confirmations need two more. */
  const complete = async (uuid: string): Promise<Body> => {
    for (let i = 0; i < 80; i++) {
      const got = (await signed(stack, m, 'GET', `/v1/withdrawals/${uuid}`)).body;
      if (got.status === 'completed' || got.status === 'failed') break;
      if (got.tx_hash) await chain.mine(1);
      await new Promise((r) => setTimeout(r, 150));
    }
    return waitForWithdrawal(stack, m, uuid, 'completed', 1);
  };

  beforeAll(async () => {
    node = await startHardhatNode();
    chain = new TestChain(node.url);
    token = await chain.deployToken(6);
    await chain.mint(token, chain.funder.address, 10n ** 12n);
    await chain.mint(token, hot, 5n * 10n ** 6n); // 5 USDT, no POL
    const captured = captureLogger();
    lines = captured.lines;
    stack = await startStack({ logger: captured.logger, env: { ...polygonOnHardhat(node.url, token), PAYOUT_POLL_INTERVAL_MS: '250' } });
    m = await createMerchant(stack);
    const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '40', network: 'POLYGON' })).body;
    await chain.transfer(token, inv.address, toBaseUnits(inv.pay_amount, 6));
    await chain.mine(2);
    await eventually(async () => ((await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body.status === 'paid' ? true : undefined), 20_000, 'invoice paid');
    await whitelist(stackRpcs(stack), m.merchantId, 'POLYGON', payee);
    // Past its cooldown without moving the daemon's clock (a live daemon's clock is real time).
    await stack.daemon.orm.em.fork().execute(`update withdrawal_whitelist set usable_at = now() - interval '1 minute' where merchant_id = ?`, [m.merchantId]);
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await node?.stop();
  });

  it('larger than the hot wallet holds (and no POL): waits with an alert naming both, then is paid once funded', async () => {
    const nonceBefore = await chain.public.getTransactionCount({ address: hot });
    const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'POLYGON', address: payee, amount: '10' });
    expect(res.status).toBe(201);
    const uuid = res.body.uuid as string;
    const w = await waiting(uuid);
    // net_payout 9.8 (POLYGON's fee 0.2); 5 USDT held: 4.8 to send, and POL for gas.
    expect(w.failure_reason).toMatch(new RegExp(`^needs_operator: hot_wallet_underfunded: POLYGON hot wallet ${hot} cannot pay this payout: send 4\\.8 USDT and 0\\.\\d+ POL to ${hot} on POLYGON`));
    const got = (await signed(stack, m, 'GET', `/v1/withdrawals/${uuid}`)).body;
    expect(got).toMatchObject({ status: 'processing', tx_hash: null, failure_reason: null, completed_at: null });
    expect((await row(uuid)).signed_raw).toBeNull();
    expect(await balance(stack, m)).toMatchObject({ held: '10' });
    const [alert] = alerts(uuid);
    expect(alert).toMatchObject({ network: 'POLYGON', wallet: hot, token_short: '4.8', gas_coin: 'POL' });

    // Funding only the USDT: it still waits, for the gas coin alone now (a new alert line).
    await chain.mint(token, hot, 100n * 10n ** 6n);
    await eventually(async () => ((await row(uuid)).failure_reason?.includes(': send 0.') ? true : undefined), 20_000, 'the alert to name only POL');
    expect((await row(uuid)).failure_reason).not.toContain('USDT and');
    expect(alerts(uuid).length).toBeGreaterThanOrEqual(2);
    expect(alerts(uuid).at(-1)).toMatchObject({ token_short: null, gas_coin: 'POL' });
    expect(await chain.public.getTransactionCount({ address: hot })).toBe(nonceBefore);

    await chain.fundEth(hot, '1');
    const done = await complete(uuid);
    expect(done.failure_reason).toBeNull();
    expect(await chain.balanceOf(token, payee)).toBe(9_800_000n);
    expect(await balance(stack, m)).toEqual({ available: '30', held: '0' });
    await expectLedgerExact(stack.daemon.orm);
    // Its events: processing, then completed; never failed.
    const events = await stack.daemon.orm.em.fork().execute<{ type: string }[]>('select type from outbox_events where aggregate_id = ? order by seq', [uuid]);
    expect(events.map((e) => e.type)).toEqual(['withdrawal.processing', 'withdrawal.completed']);
  });
});
