import { Address, Cell, toNano } from '@ton/core';
import { toBaseUnits } from '../../src/chains/amount';
import type { TonAdapter } from '../../src/chains/ton';
import { createMerchant, eventually, rpc, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { backdateWhitelist, balance, expectLedgerExact, stackRpcs, waitForWithdrawal, whitelist, type Body } from '../withdrawals/support';
import { TEST_MNEMONIC, tonAdapter } from './support/adapter';
import { SandboxChain } from './support/sandbox-chain';
import { startToncenter, type ToncenterServer } from './support/toncenter-server';

jest.setTimeout(120_000);

/**
 * Payouts on the harness: jetton transfers ordered by the service wallet (wallet v4r2, seqno +
 * valid_until), through a live daemon. `outside` is a second adapter on the same seed: what an
 * operator holding the mnemonic could do beside the daemon.
 */
let chain: SandboxChain;
let server: ToncenterServer;
let stack: Stack;
let m: MerchantCredentials;
let outside: TonAdapter;
let service: Address;
let payee: Address;

const units = (amount: string): bigint => toBaseUnits(amount, 6);

async function signedRow(uuid: string): Promise<{ raw: string | null; meta: Record<string, string | number> | null }> {
  const rows = await stack.daemon.orm.em
    .fork()
    .execute<{ signed_raw: string | null; signed_meta: Record<string, string | number> | null }[]>('select signed_raw, signed_meta from withdrawals where uuid = ?', [uuid]);
  return { raw: rows[0]?.signed_raw ?? null, meta: rows[0]?.signed_meta ?? null };
}

async function withdraw(amount: string): Promise<Body> {
  const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TON', address: payee.toString(), amount });
  expect(res.status).toBe(201);
  return res.body;
}

beforeAll(async () => {
  chain = await SandboxChain.create();
  server = await startToncenter(chain);
  payee = (await chain.blockchain.treasury('payee')).address;
  stack = await startStack({
    env: {
      HD_MNEMONIC: TEST_MNEMONIC,
      TON_RPC_URL: server.url,
      TON_JETTON_MASTER: chain.usdt.address.toString(),
      TON_POLL_INTERVAL_MS: '50',
      TON_RPS: '1000',
      TON_CONFIRMATIONS: '1',
      PAYOUT_POLL_INTERVAL_MS: '200',
    },
  });
  m = await createMerchant(stack);
  outside = tonAdapter(chain, server);
  await outside.init();
  // Funds: a TON invoice paid into our jetton wallet; TON for the service wallet's gas.
  const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '100', network: 'TON' })).body;
  service = Address.parse(inv.address);
  await chain.pay({ to: service, amount: units(inv.pay_amount), memo: inv.memo });
  await waitForStatus(stack, m, inv.uuid, 'paid', 20_000);
  await chain.fund(service, toNano('5'));
  await whitelist(stackRpcs(stack), m.merchantId, 'TON', payee.toString());
  await backdateWhitelist(stack.databaseUrl, m.merchantId);
}, 120_000);

afterAll(async () => {
  await outside?.close();
  await stack?.stop();
  await server?.close();
});

describe('TON payouts through the service wallet', () => {
  it('a payout end to end: completed, the payee holds net_payout, the stored message is the one that ran', async () => {
    const w = await withdraw('10');
    expect(w).toMatchObject({ status: 'processing', net_payout: '9.8', livemode: true });
    const done = await waitForWithdrawal(stack, m, w.uuid, 'completed', 30_000);
    expect(await chain.jettonBalance(payee)).toBe(9_800_000n);
    const row = await signedRow(w.uuid);
    // The withdrawal shows the hash of the external message it stored before sending.
    expect(done.tx_hash).toBe(Cell.fromBase64(row.raw!).hash().toString('hex'));
    expect(row.meta).toMatchObject({ nonce: 0 });
    expect(await balance(stack, m)).toEqual({ available: '90', held: '0' });
  });

  it('a resend after the seqno moved is refused by the wallet and harmless', async () => {
    const w = await withdraw('5');
    await waitForWithdrawal(stack, m, w.uuid, 'completed', 30_000);
    const before = await chain.jettonBalance(payee);
    const row = await signedRow(w.uuid);
    const payout = { txHash: String(w.tx_hash), raw: row.raw!, meta: row.meta! };
    await expect(outside.broadcastPayout(payout)).resolves.toBeUndefined();
    expect(await chain.jettonBalance(payee)).toBe(before);
    await expect(outside.payoutStatus(payout)).resolves.toMatchObject({ state: 'mined' });
  });

  it('an expired unsent payout is signed anew once (same seqno and query_id, later valid_until) and paid once', async () => {
    const before = await chain.jettonBalance(payee);
    server.failNext('sendBoc', 1_000_000);
    const w = await withdraw('3');
    const first = await eventually(async () => (await signedRow(w.uuid)).meta ?? undefined, 15_000, 'the payout signed');
    await new Promise((r) => setTimeout(r, 1500));
    expect((await waitForWithdrawal(stack, m, w.uuid, 'processing')).status).toBe('processing');
    chain.advance(Number(first.validUntil) - chain.now + 10);
    server.failNext('sendBoc', 0);
    const done = await waitForWithdrawal(stack, m, w.uuid, 'completed', 30_000);
    const last = (await signedRow(w.uuid)).meta!;
    expect(last).toMatchObject({ nonce: first.nonce, queryId: first.queryId });
    expect(Number(last.validUntil)).toBeGreaterThan(Number(first.validUntil));
    expect(done.tx_hash).not.toBe(first.txHash);
    expect(await chain.jettonBalance(payee)).toBe(before + 2_800_000n);
  });

  it('two payouts at once take consecutive seqnos (one per seqno) and are each paid once', async () => {
    const before = await chain.jettonBalance(payee);
    const [a, b] = await Promise.all([withdraw('2'), withdraw('2')]);
    await waitForWithdrawal(stack, m, a.uuid, 'completed', 30_000);
    await waitForWithdrawal(stack, m, b.uuid, 'completed', 30_000);
    const seqnos = [Number((await signedRow(a.uuid)).meta!.nonce), Number((await signedRow(b.uuid)).meta!.nonce)].sort();
    expect(seqnos[1]).toBe(seqnos[0]! + 1);
    expect(await chain.jettonBalance(payee)).toBe(before + 2n * 1_800_000n);
  });

  it('two payouts expired unsent are each signed anew at their own seqno (no gap in the queue) and each paid once', async () => {
    const before = await chain.jettonBalance(payee);
    server.failNext('sendBoc', 1_000_000);
    const [a, b] = await Promise.all([withdraw('2'), withdraw('2')]);
    const meta = async (uuid: string) => (await signedRow(uuid)).meta ?? undefined;
    const firstA = await eventually(() => meta(a.uuid), 15_000, 'a signed');
    const firstB = await eventually(() => meta(b.uuid), 15_000, 'b signed');
    chain.advance(Math.max(Number(firstA.validUntil), Number(firstB.validUntil)) - chain.now + 10);
    // Both expire (the wallet waits below or at their seqnos); each new attempt keeps its seqno.
    const later = async (uuid: string, first: Record<string, string | number>) => {
      const m2 = await meta(uuid);
      return m2 && Number(m2.validUntil) > Number(first.validUntil) ? m2 : undefined;
    };
    const againA = await eventually(() => later(a.uuid, firstA), 30_000, 'a signed anew');
    const againB = await eventually(() => later(b.uuid, firstB), 30_000, 'b signed anew');
    expect([againA.nonce, againB.nonce]).toEqual([firstA.nonce, firstB.nonce]);
    server.failNext('sendBoc', 0);
    await waitForWithdrawal(stack, m, a.uuid, 'completed', 30_000);
    await waitForWithdrawal(stack, m, b.uuid, 'completed', 30_000);
    expect(await chain.jettonBalance(payee)).toBe(before + 2n * 1_800_000n);
  });

  it('a payout larger than our jetton balance is not signed: it waits (issue 45 item 7); rejected by an operator, the hold is released', async () => {
    // Someone with the seed moved jettons out beside the daemon: the merchant's ledger still shows them.
    const held = await chain.jettonBalance(service);
    const drain = await outside.signPayout({ id: 'drain', to: (await chain.blockchain.treasury('elsewhere')).address.toString(), amount: ((Number(held) - 1_000_000) / 1e6).toFixed(6) });
    await outside.broadcastPayout(drain);
    expect(await chain.jettonBalance(service)).toBe(1_000_000n);
    const avail = await balance(stack, m);
    const w = await withdraw('20');
    // Nothing signed, nothing sent, no gas burnt: it waits for liquidity (test/ton/short-wallet.test.ts pays it after funding).
    await eventually(
      async () => {
        const [row] = await stack.daemon.orm.em
          .fork()
          .execute<{ failure_reason: string | null; signed_raw: string | null }[]>('select failure_reason, signed_raw from withdrawals where uuid = ?', [w.uuid]);
        return row?.signed_raw === null && row.failure_reason?.startsWith('needs_operator: hot_wallet_underfunded: ') ? true : undefined;
      },
      30_000,
      'the payout to wait for liquidity',
    );
    const rejected = await rpc<{ status: string }>((cb) => stack.clients.operator.rejectWithdrawal({ uuid: w.uuid, reason: 'jettons moved out' }, stack.operator, cb));
    expect(rejected.status).toBe('rejected');
    expect(await balance(stack, m)).toEqual(avail);
    expect(await chain.jettonBalance(service)).toBe(1_000_000n);
    await expectLedgerExact(stack.daemon.orm);
  });
});
