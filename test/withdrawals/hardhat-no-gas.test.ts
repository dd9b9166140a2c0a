import type { Address } from 'viem';
import { toBaseUnits } from '../../src/chains/amount';
import { createMerchant, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { polygonOnHardhat, TEST_MNEMONIC, testCodec } from '../evm/support/adapter';
import { startHardhatNode, type HardhatNode } from '../evm/support/hardhat-node';
import { TestChain } from '../evm/support/test-chain';
import { captureLogger, type LogLine } from '../webhooks/support';
import { balance, expectLedgerExact, stackRpcs, waitForWithdrawal, whitelist } from './support';

jest.setTimeout(90_000);

/**
 * POLYGON live on a real `hardhat node`, the hot wallet holding USDT but no POL for gas: the
 * withdrawal fails and says why, in words an operator can act on, on the REST object, in the
 * withdrawal.failed event and in a WARN line; rejection_reason stays null; nothing reached the chain.
 */
describe('a payout the hot wallet cannot pay the gas of (hardhat, POLYGON live)', () => {
  let node: HardhatNode;
  let chain: TestChain;
  let token: Address;
  let stack: Stack;
  let m: MerchantCredentials;
  let lines: LogLine[];
  const hot = testCodec().hotWallet().address as Address;
  const payee = testCodec().sampleAddress('no-gas payee') as Address;

  beforeAll(async () => {
    node = await startHardhatNode();
    chain = new TestChain(node.url);
    token = await chain.deployToken(6);
    await chain.mint(token, chain.funder.address, 10n ** 12n);
    await chain.mint(token, hot, 1_000n * 10n ** 6n); // USDT, and no POL at all
    const captured = captureLogger();
    lines = captured.lines;
    stack = await startStack({
      logger: captured.logger,
      env: {
        ...polygonOnHardhat(node.url, token),
        PAYOUT_POLL_INTERVAL_MS: '250',
      },
    });
    m = await createMerchant(stack);
    const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '20', network: 'POLYGON' })).body;
    await chain.transfer(token, inv.address, toBaseUnits(inv.pay_amount, 6));
    await chain.mine(2);
    await waitForStatus(stack, m, inv.uuid, 'paid', 20_000);
    await whitelist(stackRpcs(stack), m.merchantId, 'POLYGON', payee);
    // Past its cooldown without moving the daemon's clock (a live daemon's clock is real time).
    await stack.daemon.orm.em.fork().execute(`update withdrawal_whitelist set usable_at = now() - interval '1 minute' where merchant_id = ?`, [m.merchantId]);
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await node?.stop();
  });

  it('fails with failure_reason naming the hot wallet, its balance and what is needed; the hold is released', async () => {
    expect(await chain.public.getBalance({ address: hot })).toBe(0n);
    const nonceBefore = await chain.public.getTransactionCount({ address: hot });
    const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'POLYGON', address: payee, amount: '10' });
    expect(res.status).toBe(201);
    const failed = await waitForWithdrawal(stack, m, res.body.uuid, 'failed');

    const reason = failed.failure_reason as string;
    expect(reason).toMatch(new RegExp(`^payout_insufficient_gas: POLYGON hot wallet ${hot} has 0 POL for gas; this payout needs up to 0\\.\\d+ POL: send POL to it`));
    expect(failed).toMatchObject({ status: 'failed', rejection_reason: null, tx_hash: null, completed_at: null });
    // Nothing was signed for the chain to see, nothing sent; the amount is back.
    expect(await chain.public.getTransactionCount({ address: hot })).toBe(nonceBefore);
    expect(await chain.balanceOf(token, payee)).toBe(0n);
    const [row] = await stack.daemon.orm.em.fork().execute<{ signed_raw: string | null }[]>('select signed_raw from withdrawals where uuid = ?', [failed.uuid]);
    expect(row!.signed_raw).toBeNull();
    expect(await balance(stack, m)).toEqual({ available: '20', held: '0' });
    await expectLedgerExact(stack.daemon.orm);

    // withdrawal.failed carries it.
    const events = await stack.daemon.orm.em.fork().execute<{ type: string; body: string }[]>('select type, body from outbox_events where aggregate_id = ? order by seq', [failed.uuid]);
    expect(events.map((e) => e.type)).toEqual(['withdrawal.processing', 'withdrawal.failed']);
    expect(JSON.parse(events[1]!.body).data).toMatchObject({ status: 'failed', failure_reason: reason, rejection_reason: null });
    // Its data is the gateway's REST body of the failed withdrawal, to the byte (one definition:
    // src/lib/rest-json.ts; the other statuses: test/webhooks/rest-json-identity.test.ts).
    const rest = (await signed(stack, m, 'GET', `/v1/withdrawals/${failed.uuid}`)).text;
    expect(JSON.parse(events[1]!.body).data).toEqual(JSON.parse(rest));
    expect(events[1]!.body.endsWith(`,"data":${rest}}`)).toBe(true);

    // One WARN line with the ids and the reason.
    const warned = lines.filter((l) => l.level === 40 && l.withdrawalUuid === failed.uuid);
    expect(warned).toEqual([
      expect.objectContaining({ msg: 'withdrawal failed', merchantId: m.merchantId, network: 'POLYGON', previousStatus: 'processing', status: 'failed', failureReason: reason }),
    ]);
  });

  it('once the hot wallet has gas money, the next withdrawal is paid out', async () => {
    await chain.fundEth(hot, '1');
    const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'POLYGON', address: payee, amount: '10' });
    expect(res.status).toBe(201);
    // Automine: the payout's block is mined at once; three confirmations need two more.
    for (let i = 0; i < 40; i++) {
      const got = (await signed(stack, m, 'GET', `/v1/withdrawals/${res.body.uuid}`)).body;
      if (got.status === 'completed' || got.status === 'failed') break;
      if (got.tx_hash) await chain.mine(1);
      await new Promise((r) => setTimeout(r, 150));
    }
    const done = await waitForWithdrawal(stack, m, res.body.uuid, 'completed', 1);
    expect(done.failure_reason).toBeNull();
    expect(await chain.balanceOf(token, payee)).toBe(9_800_000n);
  });
});
