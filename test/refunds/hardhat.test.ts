import Decimal from 'decimal.js';
import type { Address } from 'viem';
import { toBaseUnits } from '../../src/chains/amount';
import { ERC20_ABI } from '../../src/chains/evm/abi';
import { createMerchant, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { polygonOnHardhat, testCodec } from '../evm/support/adapter';
import { startHardhatNode, type HardhatNode } from '../evm/support/hardhat-node';
import { TestChain } from '../evm/support/test-chain';
import { balance, expectLedgerExact, type Body } from '../withdrawals/support';

jest.setTimeout(90_000);

/**
 * A refund on a live EVM invoice: POLYGON on a real `hardhat node`. The buyer overpays; the
 * merchant refunds the excess to the buyer's address (no whitelist); the withdrawal payout path
 * sends one token transfer of net_payout from the hot wallet, and the ledger stays exact.
 */
describe('refunds on a hardhat node (POLYGON live)', () => {
  let node: HardhatNode;
  let chain: TestChain;
  let token: Address;
  let stack: Stack;
  let m: MerchantCredentials;
  const buyer = testCodec().sampleAddress('hardhat refund buyer') as Address;

  async function transfersTo(to: Address): Promise<bigint[]> {
    const logs = await chain.public.getContractEvents({ address: token, abi: ERC20_ABI, eventName: 'Transfer', args: { to }, fromBlock: 0n });
    return logs.map((l) => l.args.value!);
  }

  beforeAll(async () => {
    node = await startHardhatNode();
    chain = new TestChain(node.url);
    token = await chain.deployToken(6);
    await chain.mint(token, chain.funder.address, 10n ** 12n);
    const hot = testCodec().hotWallet().address;
    await chain.mint(token, hot, 1_000n * 10n ** 6n);
    await chain.fundEth(hot);
    stack = await startStack({ env: { ...polygonOnHardhat(node.url, token), PAYOUT_POLL_INTERVAL_MS: '250' } });
    m = await createMerchant(stack, { platform_fee_percent: '0' });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await node?.stop();
  });

  it('an overpaid invoice: the excess goes back to the buyer on chain, the fee deducted; ledger exact', async () => {
    const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '100', network: 'POLYGON' })).body;
    await chain.transfer(token, inv.address, toBaseUnits(new Decimal(inv.pay_amount).plus(5).toString(), 6));
    await chain.mine(2);
    await waitForStatus(stack, m, inv.uuid, 'overpaid', 20_000);

    const res = await signed(stack, m, 'POST', `/v1/invoices/${inv.uuid}/refunds`, { address: buyer, reason: 'overpaid' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'processing', amount: '5', fee: 'deducted', network_fee: '0.2', net_payout: '4.8', livemode: true });
    let done: Body = null;
    for (let i = 0; i < 80 && done?.status !== 'completed'; i++) {
      done = (await signed(stack, m, 'GET', `/v1/refunds/${res.body.uuid}`)).body;
      if (done.tx_hash) await chain.mine(1);
      await new Promise((r) => setTimeout(r, 150));
    }
    expect(done.status).toBe('completed');
    expect((await chain.public.getTransactionReceipt({ hash: done.tx_hash })).status).toBe('success');
    expect(await transfersTo(buyer)).toEqual([4_800_000n]);
    expect((await balance(stack, m)).held).toBe('0');
    await expectLedgerExact(stack.daemon.orm);
    // Nothing left to refund: the excess is spent, and a second default refund is refused.
    const again = await signed(stack, m, 'POST', `/v1/invoices/${inv.uuid}/refunds`, { address: buyer });
    expect(again.status).toBe(422);
    expect(again.body.error.code).toBe('nothing_to_refund');
  });
});
