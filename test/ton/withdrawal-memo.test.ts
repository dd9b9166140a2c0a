import { Address, toNano } from '@ton/core';
import { toBaseUnits } from '../../src/chains/amount';
import { internalTransferOf } from '../../src/chains/ton/jetton-messages';
import type { WhitelistEntry } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { createMerchant, rpc, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { backdateWhitelist, stackRpcs, waitForWithdrawal } from '../withdrawals/support';
import { TEST_MNEMONIC } from './support/adapter';
import { SandboxChain } from './support/sandbox-chain';
import { startToncenter, type ToncenterServer } from './support/toncenter-server';

jest.setTimeout(120_000);

/**
 * Issue 45 item 5 on the TON sandbox harness: a withdrawal's memo (its own, or its whitelist entry's)
 * is the text comment of the payout's forward payload, as the payee's exchange reads it from the
 * `internal_transfer` its jetton wallet accepted (the same parser chainpay's own deposits use).
 */
let chain: SandboxChain;
let server: ToncenterServer;
let stack: Stack;
let m: MerchantCredentials;
let exchange: Address;

const units = (amount: string): bigint => toBaseUnits(amount, 6);

/** The comments of the jetton credits the payee's jetton wallet accepted, oldest first. */
async function commentsReceived(owner: Address): Promise<(string | null)[]> {
  const jw = await chain.jettonWallet(owner);
  const txs = [...(await chain.transactionsOf(jw))].reverse();
  return txs.map((tx) => internalTransferOf(tx)).flatMap((t) => (t ? [t.memo] : []));
}

beforeAll(async () => {
  chain = await SandboxChain.create();
  server = await startToncenter(chain);
  exchange = (await chain.blockchain.treasury('exchange')).address;
  stack = await startStack({
    env: {
      HD_MNEMONIC: TEST_MNEMONIC,
      TON_RPC_URL: server.url,
      TON_JETTON_MASTER: chain.usdt.address.toString(),
      TON_POLL_INTERVAL_MS: '50',
      TON_CONFIRMATIONS: '1',
      PAYOUT_POLL_INTERVAL_MS: '200',
    },
  });
  m = await createMerchant(stack);
  const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '50', network: 'TON' })).body;
  const service = Address.parse(inv.address);
  await chain.pay({ to: service, amount: units(inv.pay_amount), memo: inv.memo });
  await waitForStatus(stack, m, inv.uuid, 'paid', 20_000);
  await chain.fund(service, toNano('5'));
  await rpc<WhitelistEntry>((cb) => stackRpcs(stack).withdrawals.addWhitelist({ merchant_id: m.merchantId, network: 'TON', address: exchange.toString(), memo: 'DEPOSIT-4711' }, stack.operator, cb));
  await backdateWhitelist(stack.databaseUrl, m.merchantId);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await server?.close();
});

describe('TON payout comment', () => {
  it('the whitelist entry’s memo, then the withdrawal’s own (a long one: snake cells), arrive as the transfer’s text comment', async () => {
    const inherited = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TON', address: exchange.toString(), amount: '5' });
    expect(inherited.status).toBe(201);
    expect(inherited.body.memo).toBe('DEPOSIT-4711');
    await waitForWithdrawal(stack, m, inherited.body.uuid, 'completed', 30_000);
    expect(await commentsReceived(exchange)).toEqual(['DEPOSIT-4711']);

    const own = `Überweisung 🚀 ${'9'.repeat(100)}`; // 116 code points, 220 bytes: more than one cell holds
    const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TON', address: exchange.toString(), amount: '6', memo: own });
    expect(res.body.memo).toBe(own);
    await waitForWithdrawal(stack, m, res.body.uuid, 'completed', 30_000);
    expect(await commentsReceived(exchange)).toEqual(['DEPOSIT-4711', own]);
    expect(await chain.jettonBalance(exchange)).toBe(units('4.8') + units('5.8'));
  });
});
