import type { Address } from 'viem';
import { toBaseUnits } from '../../src/chains/amount';
import { ERC20_ABI } from '../../src/chains/evm/abi';
import type { Withdrawal } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { createMerchant, eventually, rpc, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { polygonOnHardhat, TEST_MNEMONIC, testCodec } from '../evm/support/adapter';
import { startHardhatNode, type HardhatNode } from '../evm/support/hardhat-node';
import { TestChain } from '../evm/support/test-chain';
import { DaemonClock } from '../../src/actors/daemon-clock';
import { backdateWhitelist, balance, expectLedgerExact, stackRpcs, waitForWithdrawal, whitelist, type Body } from './support';

jest.setTimeout(90_000);

/**
 * POLYGON runs live on a real `hardhat node` (USDT-like token, 6 decimals); payouts leave the
 * daemon's hot wallet. A live daemon: the other networks are disabled, no devnet control exists;
 * the test drives the daemon's clock itself (startStack's `clock`) to pass the fee-bump wait.
 */
describe('withdrawals on a hardhat node (POLYGON live)', () => {
  const clock = new DaemonClock();
  let fundingInvoice = '';
  let node: HardhatNode;
  let chain: TestChain;
  let token: Address;
  let stack: Stack;
  let m: MerchantCredentials;
  const payee = testCodec().sampleAddress('hardhat payee') as Address;

  async function transfersTo(to: Address): Promise<bigint[]> {
    const logs = await chain.public.getContractEvents({ address: token, abi: ERC20_ABI, eventName: 'Transfer', args: { to }, fromBlock: 0n });
    return logs.map((l) => l.args.value!);
  }

  /** Mined transactions confirm as blocks follow; the daemon polls the receipt. */
  async function mineUntil(uuid: string, status: string): Promise<Body> {
    for (let i = 0; i < 40; i++) {
      const got = (await signed(stack, m, 'GET', `/v1/withdrawals/${uuid}`)).body;
      if (got.status === status) return got;
      if (got.tx_hash) await chain.mine(1);
      await new Promise((r) => setTimeout(r, 150));
    }
    return waitForWithdrawal(stack, m, uuid, status, 1);
  }

  beforeAll(async () => {
    node = await startHardhatNode();
    chain = new TestChain(node.url);
    token = await chain.deployToken(6);
    await chain.mint(token, chain.funder.address, 10n ** 12n);
    const hot = testCodec().hotWallet().address;
    await chain.mint(token, hot, 1_000n * 10n ** 6n);
    await chain.fundEth(hot);
    stack = await startStack({
      env: {
        ...polygonOnHardhat(node.url, token),
        PAYOUT_BUMP_AFTER_MS: '60000',
        PAYOUT_POLL_INTERVAL_MS: '250',
      },
      clock,
    });
    m = await createMerchant(stack);
    await stack.daemon.orm.em.fork().execute(`update merchants set cap_per_withdrawal = 20 where id = ?`, [m.merchantId]);
    // Funds: a POLYGON invoice paid on the node.
    const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '100', network: 'POLYGON' })).body;
    expect(inv.livemode).toBe(true);
    fundingInvoice = inv.uuid;
    await chain.transfer(token, inv.address, toBaseUnits(inv.pay_amount, 6));
    await chain.mine(2);
    await waitForStatus(stack, m, inv.uuid, 'paid', 20_000);
    const r = stackRpcs(stack);
    await whitelist(r, m.merchantId, 'POLYGON', payee);
    await backdateWhitelist(stack.databaseUrl, m.merchantId);
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await node?.stop();
  });

  it('within the caps: processing, broadcast from the hot wallet, completed at 3 confirmations; one transfer of net_payout', async () => {
    const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'POLYGON', address: payee, amount: '10' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'processing', network_fee: '0.2', net_payout: '9.8', livemode: true });
    const done = await mineUntil(res.body.uuid, 'completed');
    expect(done.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await chain.public.getTransactionReceipt({ hash: done.tx_hash });
    expect(receipt.status).toBe('success');
    expect(await transfersTo(payee)).toEqual([9_800_000n]);
    expect(await balance(stack, m)).toEqual({ available: '90', held: '0' });
    // Live objects say so, in the webhooks too.
    expect(done.livemode).toBe(true);
    const bodies = await stack.daemon.orm.em.fork().execute<{ body: string }[]>(`select body from outbox_events where aggregate_id = ? order by seq`, [res.body.uuid]);
    expect(bodies.map((b) => JSON.parse(b.body).data.livemode)).toEqual([true, true]);
    const invoiceBodies = await stack.daemon.orm.em.fork().execute<{ body: string }[]>(`select body from outbox_events where aggregate_id = ? order by seq`, [fundingInvoice]);
    expect(invoiceBodies.map((b) => [JSON.parse(b.body).type, JSON.parse(b.body).data.livemode])).toEqual([
      ['invoice.confirming', true],
      ['invoice.paid', true],
    ]);
  });

  it('above the caps: review, approve, paid out; another rejected: balance restored, nothing sent', async () => {
    const big = (await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'POLYGON', address: payee, amount: '60' })).body;
    const other = (await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'POLYGON', address: payee, amount: '25' })).body;
    expect([big.status, other.status]).toEqual(['review', 'review']);
    expect(await balance(stack, m)).toEqual({ available: '5', held: '85' });

    await rpc<Withdrawal>((cb) => stack.clients.operator.approveWithdrawal({ uuid: big.uuid }, stack.operator, cb));
    const rejected = await rpc<Withdrawal>((cb) => stack.clients.operator.rejectWithdrawal({ uuid: other.uuid, reason: 'not expected' }, stack.operator, cb));
    expect(rejected).toMatchObject({ status: 'rejected', rejection_reason: 'not expected' });
    const done = await mineUntil(big.uuid, 'completed');
    expect(done.net_payout).toBe('59.8');
    expect(await transfersTo(payee)).toEqual([9_800_000n, 59_800_000n]);
    expect(await balance(stack, m)).toEqual({ available: '30', held: '0' });
    await expectLedgerExact(stack.daemon.orm);
  });

  it('a payout stuck in the mempool is replaced with a higher fee (same nonce); the replacement is mined; one transfer, ledger exact', async () => {
    const before = await transfersTo(payee);
    const row = async (uuid: string) =>
      (
        await stack.daemon.orm.em
          .fork()
          .execute<{ tx_hash: string | null; signed_meta: Record<string, string | number> | null }[]>('select tx_hash, signed_meta from withdrawals where uuid = ?', [uuid])
      )[0]!;
    let uuid = '';
    let stuck = '';
    let replacement = '';
    await chain.setAutomine(false); // no block comes: the payout waits in the mempool
    try {
      const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'POLYGON', address: payee, amount: '5' });
      expect(res.body.status).toBe('processing');
      uuid = res.body.uuid;
      stuck = await eventually(async () => (await row(uuid)).tx_hash ?? undefined, 15_000, 'the payout to be signed');
      const stuckTx = await eventually(async () => (await chain.public.getTransaction({ hash: stuck as `0x${string}` }).catch(() => undefined)) ?? undefined, 15_000, 'the payout in the mempool');
      // Not yet stuck long enough: nothing is replaced.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect((await row(uuid)).tx_hash).toBe(stuck);
      clock.advance(120_000); // past PAYOUT_BUMP_AFTER_MS on the daemon clock
      const bumped = await eventually(
        async () => {
          const now = await row(uuid);
          return now.tx_hash !== stuck ? now : undefined;
        },
        15_000,
        'the fee bump',
      );
      replacement = bumped.tx_hash!;
      expect(bumped.signed_meta).toMatchObject({ replaces: stuck, latest_tx_hash: replacement });
      const newTx = await eventually(
        async () => (await chain.public.getTransaction({ hash: replacement as `0x${string}` }).catch(() => undefined)) ?? undefined,
        15_000,
        'the replacement in the mempool',
      );
      expect(newTx.nonce).toBe(stuckTx.nonce);
      expect(newTx.maxFeePerGas! > stuckTx.maxFeePerGas!).toBe(true);
    } finally {
      await chain.setAutomine(true);
    }
    const done = await mineUntil(uuid, 'completed');
    expect(done.tx_hash).toBe(replacement);
    expect((await chain.public.getTransactionReceipt({ hash: replacement as `0x${string}` })).status).toBe('success');
    await expect(chain.public.getTransactionReceipt({ hash: stuck as `0x${string}` })).rejects.toThrow();
    expect(await transfersTo(payee)).toEqual([...before, 4_800_000n]);
    await expectLedgerExact(stack.daemon.orm);
  });
});
