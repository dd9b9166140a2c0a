import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { toBaseUnits } from '../../src/chains/amount';
import type { CreateInvoiceResponse, Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import type { CreateMerchantResponse } from '../../src/grpc/generated/chainpay/v1/merchants';
import type { CreateWithdrawalResponse, Withdrawal } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { openDatabase } from '../../src/store/orm';
import { TEST_MNEMONIC } from '../evm/support/adapter';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { grpcPortFrom, spawnTs, type Spawned } from '../support/processes';
import { eventually, rpc } from '../support/stack';
import { backdateWhitelist, expectLedgerExact, processRpcs, whitelist, type Rpcs } from '../withdrawals/support';
import { testTronCodec } from './support/adapter';
import { TronTestChain } from './support/tron-chain';

jest.setTimeout(240_000);

/**
 * TRC20 payouts through the daemon on the TRON harness: killed after the signed transaction was
 * stored and before it was broadcast, restarted: exactly one transfer; a payout that reverts on
 * chain fails and releases its hold; a hot wallet short of USDT leaves the withdrawal waiting.
 */
describe('TRC20 withdrawals on the TRON harness (daemon processes)', () => {
  let chain: TronTestChain;
  let db: TestDatabase;
  let orm: MikroORM | undefined;
  const running: Spawned[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-tron-wd-'));
  const codec = testTronCodec();
  const hot = codec.hotWallet().address;
  const payee = codec.sampleAddress('tron sigkill payee');

  async function startProcess(killAt?: string) {
    const proc = spawnTs('src/main.ts', {
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      GRPC_PORT: '0',
      CHAINPAY_TEST_KILL_AT: killAt,
      PAYOUT_POLL_INTERVAL_MS: '250',
      HD_MNEMONIC: TEST_MNEMONIC,
      TRC20_RPC_URL: chain.url,
      TRC20_TOKEN_ADDRESS: chain.usdt,
      TRC20_CONFIRMATIONS: '3',
      TRC20_POLL_INTERVAL_MS: '50',
    });
    running.push(proc);
    const ended = new Promise<number | null>((resolve) => proc.child.once('close', (code) => resolve(code)));
    const address = `127.0.0.1:${grpcPortFrom(await proc.waitFor(/gRPC server listening/))}`;
    return { proc, ended, ...processRpcs(address, dataDir) };
  }

  /** Credits `amount`: a TRC20 invoice paid on the harness through tronweb. */
  async function fund(r: Rpcs, merchantId: string, amount: string): Promise<void> {
    const md = r.forMerchant(merchantId);
    const inv = (await rpc<CreateInvoiceResponse>((cb) => r.invoices.createInvoice({ amount, network: 'TRC20' }, md, cb))).invoice!;
    await chain.pay(inv.address!, toBaseUnits(inv.pay_amount, 6));
    await eventually(
      async () => {
        await chain.produce(1);
        const got = await rpc<Invoice>((cb) => r.invoices.getInvoice({ uuid: inv.uuid }, md, cb));
        return got.status === 'paid' ? true : undefined;
      },
      30_000,
      'funding invoice to be paid',
    );
  }

  const withdrawal = (r: Rpcs, merchantId: string, uuid: string) => rpc<Withdrawal>((cb) => r.withdrawals.getWithdrawal({ uuid }, r.forMerchant(merchantId), cb));

  beforeAll(async () => {
    chain = await TronTestChain.start();
    chain.server.solidLag = 2;
    await chain.mintUsdt(hot, 15n * 10n ** 6n);
    await chain.produce(1);
    chain.setTrx(hot, 100n);
    db = await createTestDatabase('cp_tron_wd');
  }, 90_000);

  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await orm?.close();
    await db?.drop();
    await chain?.stop();
  });

  it('killed after store, before broadcast; restarted: the stored transaction is sent, one transfer; then a second payout the hot wallet cannot also pay waits; a short hot wallet waits', async () => {
    const a = await startProcess('after_sign');
    const merchantId = (await rpc<CreateMerchantResponse>((cb) => a.merchants.createMerchant({ name: 'Tron kill shop' }, a.r.operator, cb))).merchant!.merchant_id;
    await fund(a.r, merchantId, '50');
    await whitelist(a.r, merchantId, 'TRC20', payee);
    await backdateWhitelist(db.url, merchantId);
    const md = a.r.forMerchant(merchantId);
    await rpc<CreateWithdrawalResponse>((cb) => a.r.withdrawals.createWithdrawal({ network: 'TRC20', address: payee, amount: '10', reference: 'tron-kill-1' }, md, cb)).catch(() => null);
    expect(await a.ended).toBeNull(); // SIGKILL
    a.close();
    expect(a.proc.output()).toMatch(/payout signed and persisted/);

    orm = await openDatabase({ clientUrl: db.url });
    const [row] = await orm.em
      .fork()
      .execute<{ uuid: string; status: string; tx_hash: string | null; signed_meta: Record<string, string | number> }[]>(
        'select uuid, status, tx_hash, signed_meta from withdrawals where reference = ?',
        ['tron-kill-1'],
      );
    expect(row).toMatchObject({ status: 'processing', tx_hash: null, signed_meta: { from: hot, to: payee, amount: '9' } });
    const txID = String(row!.signed_meta.latest_tx_hash);
    const info = await (await fetch(`${chain.url}/wallet/gettransactioninfobyid`, { method: 'POST', body: JSON.stringify({ value: txID }) })).json();
    expect(info).toEqual({});
    expect(await chain.usdtBalance(payee)).toBe(0n);

    const c = await startProcess();
    try {
      const done = await eventually(
        async () => {
          await chain.produce(1);
          const w = await withdrawal(c.r, merchantId, row!.uuid);
          return w.status === 'completed' ? w : undefined;
        },
        60_000,
        'the interrupted withdrawal to complete',
      );
      expect(done).toMatchObject({ tx_hash: txID, net_payout: '9' });
      expect(c.proc.output()).toMatch(/reusing the persisted transaction/);
      expect(await chain.usdtBalance(payee)).toBe(9_000_000n);

      // The hot wallet holds 6 USDT: back to 15, then two payouts of 9. The host counts the payout
      // signed first against the balance (issue 45 item 7), so the other waits, never signed (it
      // used to be signed too and revert on chain), until the wallet is refilled.
      await chain.mintUsdt(hot, 9n * 10n ** 6n);
      await chain.produce(1);
      const cm = c.r.forMerchant(merchantId);
      const [w1, w2] = await Promise.all(
        ['tron-r-1', 'tron-r-2'].map(
          async (reference) => (await rpc<CreateWithdrawalResponse>((cb) => c.r.withdrawals.createWithdrawal({ network: 'TRC20', address: payee, amount: '10', reference }, cm, cb))).withdrawal!,
        ),
      );
      const rowOf = async (uuid: string) =>
        (await orm!.em.fork().execute<{ signed_raw: string | null; failure_reason: string | null }[]>('select signed_raw, failure_reason from withdrawals where uuid = ?', [uuid]))[0]!;
      const waiter = await eventually(
        async () => {
          const rows = await Promise.all([w1!, w2!].map(async (w) => ({ uuid: w.uuid, ...(await rowOf(w.uuid)) })));
          const signedOne = rows.filter((r) => r.signed_raw !== null);
          const waiting = rows.filter((r) => r.signed_raw === null && (r.failure_reason ?? '').startsWith('needs_operator: hot_wallet_underfunded: '));
          return signedOne.length === 1 && waiting.length === 1 ? waiting[0]! : undefined;
        },
        30_000,
        'one payout signed, the other waiting for liquidity',
      );
      expect(waiter.failure_reason).toMatch(new RegExp(`send \\d+ USDT to ${hot} on TRC20`));
      await chain.mintUsdt(hot, 10n * 10n ** 6n);
      const ends = await eventually(
        async () => {
          await chain.produce(1);
          const both = await Promise.all([w1!, w2!].map((w) => withdrawal(c.r, merchantId, w.uuid)));
          return both.every((w) => w.status === 'completed' || w.status === 'failed') ? both : undefined;
        },
        60_000,
        'both payouts to end',
      );
      expect(ends.map((w) => w.status)).toEqual(['completed', 'completed']);
      expect(await chain.usdtBalance(payee)).toBe(27_000_000n);
      // 50 funded, 10 + 10 + 10 paid out.
      const [bal] = await orm.em
        .fork()
        .execute<{ available: string; held: string }[]>('select available::float8::text as available, held::float8::text as held from merchant_balances where merchant_id = ?', [merchantId]);
      expect(bal).toEqual({ available: '20', held: '0' });
      await expectLedgerExact(orm);

      // 7 USDT left in the hot wallet: a payout of 9 waits, signing nothing, and says why; refilled, it goes on.
      const short = (await rpc<CreateWithdrawalResponse>((cb) => c.r.withdrawals.createWithdrawal({ network: 'TRC20', address: payee, amount: '10', reference: 'tron-short' }, cm, cb))).withdrawal!;
      await eventually(async () => (/hot_wallet_underfunded.*send 2 USDT/.test(c.proc.output()) ? true : undefined), 20_000, 'the operator signal');
      const waiting = await withdrawal(c.r, merchantId, short.uuid);
      expect(waiting.status).toBe('processing');
      expect(waiting.tx_hash || null).toBeNull();
      await chain.mintUsdt(hot, 10n * 10n ** 6n);
      await eventually(
        async () => {
          await chain.produce(1);
          return (await withdrawal(c.r, merchantId, short.uuid)).status === 'completed' ? true : undefined;
        },
        60_000,
        'the refilled payout to complete',
      );
      expect(await chain.usdtBalance(payee)).toBe(36_000_000n);
    } finally {
      c.close();
      c.proc.child.kill('SIGTERM');
      await c.ended;
    }
  });
});
