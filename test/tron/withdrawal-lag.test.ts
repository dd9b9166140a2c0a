import fs from 'node:fs';
import { Writable } from 'node:stream';
import pino from 'pino';
import os from 'node:os';
import path from 'node:path';
import { toBaseUnits } from '../../src/chains/amount';
import { TEST_MNEMONIC } from '../evm/support/adapter';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { createMerchant, eventually, signed, startStack, type MerchantCredentials, type Stack } from '../support/stack';
import { backdateWhitelist, stackRpcs, whitelist } from '../withdrawals/support';
import { testTronCodec } from './support/adapter';
import { WORST_MOMENT_PATHS } from './support/lagging-backend';
import { TronTestChain } from './support/tron-chain';

jest.setTimeout(120_000);

/**
 * Issue 45 item 3 (TRON): a load-balanced provider whose backend lags answers `{}` for the mined
 * payout at the worst moment (the heads from a fresh backend say its expiration has passed). The
 * daemon must not sign the payout again: one transfer, one signature, completed once the lag ends.
 */
let chain: TronTestChain;
let db: TestDatabase;
let stack: Stack;
let m: MerchantCredentials;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-tron-lag-'));
const codec = testTronCodec();
const hot = codec.hotWallet().address;
const payee = codec.sampleAddress('tron lag payee');
/** The daemon's warnings and errors, parsed. */
const logLines: Array<Record<string, unknown>> = [];
const logger = pino(
  { level: 'warn' },
  new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  }),
);

beforeAll(async () => {
  chain = await TronTestChain.start();
  chain.server.solidLag = 2;
  await chain.mintUsdt(hot, 100n * 10n ** 6n);
  await chain.produce(1);
  chain.setTrx(hot, 100n);
  db = await createTestDatabase('cp_tron_lag');
  stack = await startStack({
    database: db,
    dataDir,
    logger,
    env: {
      HD_MNEMONIC: TEST_MNEMONIC,
      TRC20_RPC_URL: chain.url,
      TRC20_TOKEN_ADDRESS: chain.usdt,
      TRC20_CONFIRMATIONS: '3',
      TRC20_POLL_INTERVAL_MS: '50',
      PAYOUT_POLL_INTERVAL_MS: '100',
    },
  });
  m = await createMerchant(stack);
  const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '30', network: 'TRC20' })).body as { uuid: string; address: string; pay_amount: string };
  await chain.pay(inv.address, toBaseUnits(inv.pay_amount, 6));
  await eventually(
    async () => {
      await chain.produce(1);
      return (await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body?.status === 'paid' ? true : undefined;
    },
    30_000,
    'the funding invoice to be paid',
  );
  await whitelist(stackRpcs(stack), m.merchantId, 'TRC20', payee);
  await backdateWhitelist(stack.databaseUrl, m.merchantId);
}, 120_000);

afterAll(async () => {
  chain?.server.setLagging(null);
  await stack?.stop();
  await db?.drop();
  await chain?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('a mined payout that a lagging backend answers `{}` for, past its expiration, is not signed again: one transfer, completed once the lag ends', async () => {
  // From here every lookup of a transaction or block lands on a backend 1,000 blocks behind.
  chain.server.setLagging({ blocks: 1000, paths: WORST_MOMENT_PATHS });
  const wd = (await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '10', reference: 'tron-lag' })).body as { uuid: string };
  const row = async () =>
    (
      await stack.daemon.orm.em
        .fork()
        .execute<{ payout_attempt: number; signed_meta: Record<string, string | number> | null }[]>('select payout_attempt, signed_meta from withdrawals where uuid = ?', [wd.uuid])
    )[0]!;
  const first = await eventually(async () => (await row()).signed_meta ?? undefined, 20_000, 'signed');
  const txHash = String(first.latest_tx_hash);
  // Broadcast (the payout is in the pool), then mined; then 315 s of chain time: past its expiration.
  await eventually(async () => (chain.server.calls.includes('wallet/broadcasttransaction') ? true : undefined), 20_000, 'broadcast');
  await chain.produce(1);
  await chain.produce(105);
  // Several status polls at the worst moment (heads fresh, lookups `{}`).
  const polls = chain.server.calls.filter((p) => p === 'wallet/gettransactioninfobyid').length;
  await eventually(async () => (chain.server.calls.filter((p) => p === 'wallet/gettransactioninfobyid').length >= polls + 10 ? true : undefined), 30_000, 'status polls during the lag');
  const during = await row();
  expect(during.payout_attempt).toBe(0);
  expect(during.signed_meta?.latest_tx_hash).toBe(txHash);
  expect(await chain.usdtBalance(payee)).toBe(9_000_000n);
  chain.server.setLagging(null);
  const done = await eventually(
    async () => {
      const w = (await signed(stack, m, 'GET', `/v1/withdrawals/${wd.uuid}`)).body as { status: string; tx_hash: string | null };
      return w.status === 'completed' ? w : undefined;
    },
    30_000,
    'the payout to complete',
  );
  expect(done.tx_hash).toBe(txHash);
  await chain.produce(3);
  expect(await chain.usdtBalance(payee)).toBe(9_000_000n);
  expect((await row()).payout_attempt).toBe(0);
});

it('an expired payout that lands after all (a provider hid it from every answer) is caught by the day-long watch: an operator alert and booked once', async () => {
  const payee2 = codec.sampleAddress('tron hidden payee');
  await whitelist(stackRpcs(stack), m.merchantId, 'TRC20', payee2);
  await backdateWhitelist(stack.databaseUrl, m.merchantId);
  // The provider lies consistently about the first transaction: not in any block, no info.
  chain.server.hideNextBroadcast = true;
  const wd = (await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee2, amount: '10', reference: 'tron-hidden' })).body as { uuid: string };
  const row = async () =>
    (
      await stack.daemon.orm.em
        .fork()
        .execute<{ payout_attempt: number; signed_meta: Record<string, string | number> | null }[]>('select payout_attempt, signed_meta from withdrawals where uuid = ?', [wd.uuid])
    )[0]!;
  await eventually(async () => (chain.server.hidden.size > 0 ? true : undefined), 20_000, 'the first transaction broadcast');
  const [oldTx] = [...chain.server.hidden];
  await chain.produce(1); // it executes: 9 USDT leave
  await chain.produce(105); // past its expiration: the proof reads every block, the lie holds
  await eventually(
    async () => {
      await chain.produce(1);
      const w = (await signed(stack, m, 'GET', `/v1/withdrawals/${wd.uuid}`)).body as { status: string };
      return w.status === 'completed' ? w : undefined;
    },
    40_000,
    'the re-signed payout to complete',
  );
  expect((await row()).payout_attempt).toBe(1);
  expect(String((await row()).signed_meta?.expired_tx_hashes)).toBe(oldTx);
  expect(await chain.usdtBalance(payee2)).toBe(18_000_000n); // paid twice: what the watch must surface
  // The provider stops hiding it: within a round of the watch, an alert and one journal.
  chain.server.hidden.clear();
  const reference = `withdrawal:${wd.uuid}:extra_payout:${oldTx}`;
  const entries = async () =>
    stack.daemon.orm.em
      .fork()
      .execute<{ account: string; amount: string }[]>(
        'select e.account, e.amount::text as amount from ledger_entries e join journals j on j.id = e.journal_id where j.reference = ? order by e.account',
        [reference],
      );
  await eventually(async () => ((await entries()).length > 0 ? true : undefined), 20_000, 'the landing booked');
  // Two more rounds of the watch (every 12 payout polls: 1.2 s here): booked once, alerted once.
  await new Promise((r) => setTimeout(r, 3_000));
  const lines = await entries();
  expect(lines.map((l) => [l.account, Number(l.amount)])).toEqual([
    ['chain:TRC20:hot', 9],
    ['loss:TRC20:extra_payouts', -9],
  ]);
  const alerts = logLines.filter((l) => l.alert === 'expired_payout_landed');
  expect(alerts).toHaveLength(1);
  expect(alerts[0]).toMatchObject({ withdrawalUuid: wd.uuid, txHash: oldTx, network: 'TRC20', amount: '9', withdrawalStatus: 'completed' });
});
