import { Address, toNano } from '@ton/core';
import { toBaseUnits } from '../../src/chains/amount';
import type { TonAdapter } from '../../src/chains/ton';
import { createMerchant, eventually, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { captureLogger, type LogLine } from '../webhooks/support';
import { backdateWhitelist, balance, expectLedgerExact, stackRpcs, waitForWithdrawal, whitelist } from '../withdrawals/support';
import { TEST_MNEMONIC, tonAdapter } from './support/adapter';
import { SandboxChain } from './support/sandbox-chain';
import { startToncenter, type ToncenterServer } from './support/toncenter-server';

jest.setTimeout(120_000);

/**
 * Issue 45 item 7 on the TON sandbox harness: our jetton wallet holds less USDT than a payout sends.
 * Before the host's rule the service wallet signed and sent the transfer, our jetton wallet refused it
 * on chain (gas burnt) and the withdrawal failed. Now nothing is signed or sent: the withdrawal waits
 * in processing with an operator alert naming what to send, and is paid once the USDT arrives.
 */
let chain: SandboxChain;
let server: ToncenterServer;
let stack: Stack;
let m: MerchantCredentials;
let outside: TonAdapter;
let service: Address;
let payee: Address;
let lines: LogLine[];

const units = (amount: string): bigint => toBaseUnits(amount, 6);

async function walletSeqno(): Promise<number> {
  return (await chain.blockchain.runGetMethod(service, 'seqno')).stackReader.readNumber();
}

async function tonBalance(): Promise<bigint> {
  return (await chain.blockchain.getContract(service)).balance;
}

async function row(uuid: string): Promise<{ signed_raw: string | null; failure_reason: string | null; status: string }> {
  return (
    await stack.daemon.orm.em
      .fork()
      .execute<{ signed_raw: string | null; failure_reason: string | null; status: string }[]>('select signed_raw, failure_reason, status from withdrawals where uuid = ?', [uuid])
  )[0]!;
}

beforeAll(async () => {
  chain = await SandboxChain.create();
  server = await startToncenter(chain);
  payee = (await chain.blockchain.treasury('payee')).address;
  const captured = captureLogger();
  lines = captured.lines;
  stack = await startStack({
    logger: captured.logger,
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
  outside = tonAdapter(chain, server);
  await outside.init();
  const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '50', network: 'TON' })).body;
  service = Address.parse(inv.address);
  await chain.pay({ to: service, amount: units(inv.pay_amount), memo: inv.memo });
  await waitForStatus(stack, m, inv.uuid, 'paid', 20_000);
  await chain.fund(service, toNano('5'));
  await whitelist(stackRpcs(stack), m.merchantId, 'TON', payee.toString());
  await backdateWhitelist(stack.databaseUrl, m.merchantId);
  // An operator moves 45 USDT out of the service wallet with the exported key: the merchant's 50 stays credited.
  const bystander = (await chain.blockchain.treasury('bystander')).address;
  const before = await chain.jettonBalance(service);
  const drain = await outside.signPayout({ id: 'operator-drain', to: bystander.toString(), amount: '45' });
  await outside.broadcastPayout(drain);
  await eventually(async () => ((await chain.jettonBalance(service)) === before - units('45') ? true : undefined), 20_000, 'the drain to land');
}, 120_000);

afterAll(async () => {
  await outside?.close();
  await stack?.stop();
  await server?.close();
});

describe('TON: our jetton wallet short of USDT', () => {
  it('waits: nothing signed or sent (seqno and TON balance unchanged), an alert naming the USDT to send; paid once it arrives', async () => {
    const held = await chain.jettonBalance(service);
    const seqno = await walletSeqno();
    const ton = await tonBalance();
    const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TON', address: payee.toString(), amount: '20' });
    expect(res.status).toBe(201);
    const uuid = res.body.uuid as string;
    expect(res.body.net_payout).toBe('19.8');
    const why = await eventually(
      async () => {
        const r = await row(uuid);
        return r.status === 'processing' && r.failure_reason?.startsWith('needs_operator: hot_wallet_underfunded: ') ? r.failure_reason : undefined;
      },
      20_000,
      'the withdrawal to wait for liquidity',
    );
    const short = (units('19.8') - held).toString();
    const shortText = `${short.slice(0, -6) || '0'}.${short.slice(-6)}`.replace(/\.?0+$/, '');
    expect(why).toContain(`TON hot wallet ${service.toString({ bounceable: false, urlSafe: true })} cannot pay this payout: send ${shortText} USDT to `);
    // Several polls later: nothing signed, no external message ran, no gas spent.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await row(uuid)).toMatchObject({ status: 'processing', signed_raw: null });
    expect(await walletSeqno()).toBe(seqno);
    expect(await tonBalance()).toBe(ton);
    expect(await balance(stack, m)).toEqual({ available: '30', held: '20' });
    expect(lines.filter((l) => l.withdrawalUuid === uuid && l.alert === 'hot_wallet_underfunded' && l.level === 50)).toEqual([
      expect.objectContaining({ network: 'TON', token_short: shortText, gas_short: null }),
    ]);

    // USDT arrives at the service wallet (no memo: an unattributed deposit): the payout is signed and completes.
    await chain.pay({ to: service, amount: units('30'), memo: null });
    const done = await waitForWithdrawal(stack, m, uuid, 'completed', 30_000);
    expect(done.failure_reason).toBeNull();
    expect(await chain.jettonBalance(payee)).toBe(units('19.8'));
    expect(await walletSeqno()).toBe(seqno + 1);
    expect(await balance(stack, m)).toEqual({ available: '30', held: '0' });
    await expectLedgerExact(stack.daemon.orm);
  });
});
