import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toBaseUnits } from '../../src/chains/amount';
import { TEST_MNEMONIC } from '../evm/support/adapter';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { createMerchant, eventually, signed, startStack, type MerchantCredentials, type Stack } from '../support/stack';
import { backdateWhitelist, stackRpcs, whitelist } from '../withdrawals/support';
import { testTronCodec } from './support/adapter';
import { TronTestChain } from './support/tron-chain';

jest.setTimeout(120_000);

let chain: TronTestChain;
let db: TestDatabase;
let stack: Stack;
let m: MerchantCredentials;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-tron-exp-'));
const codec = testTronCodec();
const hot = codec.hotWallet().address;
const payee = codec.sampleAddress('tron expiry payee');

beforeAll(async () => {
  chain = await TronTestChain.start();
  chain.server.solidLag = 2;
  await chain.mintUsdt(hot, 100n * 10n ** 6n);
  await chain.produce(1);
  chain.setTrx(hot, 100n);
  db = await createTestDatabase('cp_tron_exp');
  stack = await startStack({
    database: db,
    dataDir,
    env: {
      HD_MNEMONIC: TEST_MNEMONIC,
      TRC20_RPC_URL: chain.url,
      TRC20_TOKEN_ADDRESS: chain.usdt,
      TRC20_CONFIRMATIONS: '3',
      TRC20_POLL_INTERVAL_MS: '50',
      PAYOUT_POLL_INTERVAL_MS: '250',
    },
  });
  m = await createMerchant(stack);
  const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '30', network: 'TRC20' })).body as { uuid: string; address: string; pay_amount: string };
  await chain.pay(inv.address, toBaseUnits(inv.pay_amount, 6));
  // Paid once its block is solidified too: blocks keep coming, as on mainnet every 3 s.
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
  await stack?.stop();
  await db?.drop();
  await chain?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('a payout signed but never accepted by the node expires on chain (payoutStatus expired): signed anew once, at once, one transfer, completed with the new txID', async () => {
  chain.server.refuseBroadcasts = 'SERVER_BUSY';
  const wd = (await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '10', reference: 'tron-expiry' })).body as { uuid: string };
  const rows = async () =>
    stack.daemon.orm.em.fork().execute<{ signed_meta: Record<string, string | number> | null; tx_hash: string | null }[]>('select signed_meta, tx_hash from withdrawals where uuid = ?', [wd.uuid]);
  const first = await eventually(async () => ((await rows())[0]?.signed_meta ? (await rows())[0]!.signed_meta! : undefined), 20_000, 'signed');
  const oldTx = String(first.latest_tx_hash);
  // 315 s of chain time: past its expiration (5 minutes), and so is the solidified head; the node never had it.
  await chain.produce(105);
  chain.server.refuseBroadcasts = null;
  const done = await eventually(
    async () => {
      await chain.produce(1);
      const w = (await signed(stack, m, 'GET', `/v1/withdrawals/${wd.uuid}`)).body as { status: string; tx_hash: string | null };
      return w.status === 'completed' ? w : undefined;
    },
    60_000,
    'the re-signed payout to complete',
  );
  expect(done.tx_hash).not.toBe(oldTx);
  expect(await chain.usdtBalance(payee)).toBe(9_000_000n);
  const info = await (await fetch(`${chain.url}/wallet/gettransactioninfobyid`, { method: 'POST', body: JSON.stringify({ value: oldTx }) })).json();
  expect(info).toEqual({});
  // Signed exactly twice: the host's second attempt, recording the expired transaction.
  const [row] = await stack.daemon.orm.em
    .fork()
    .execute<{ payout_attempt: number; signed_meta: Record<string, unknown> }[]>('select payout_attempt, signed_meta from withdrawals where uuid = ?', [wd.uuid]);
  expect(row!.payout_attempt).toBe(1);
  expect(String(row!.signed_meta.expired_tx_hashes).split(',')).toEqual([oldTx]);
});
