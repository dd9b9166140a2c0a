import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js';
import { toBaseUnits } from '../../src/chains/amount';
import type { WhitelistEntry } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { createMerchant, eventually, rpc, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { captureLogger, type LogLine } from '../webhooks/support';
import { backdateWhitelist, balance, expectLedgerExact, waitForWithdrawal } from '../withdrawals/support';
import { TEST_MNEMONIC, testCodec } from './support/adapter';
import { Payer } from './support/payer';
import { SolanaRpcServer } from './support/rpc-server';
import { SvmChain } from './support/svm-chain';

jest.setTimeout(120_000);

/**
 * Issue 45 item 7 on the SOLANA litesvm harness: a hot wallet with 5 USDT and no SOL. Before the
 * host's rule the payout failed at once (payout_insufficient_token) and released the hold. Now the
 * withdrawal waits in processing, nothing signed or sent, with an operator alert naming the USDT
 * and the SOL to send; funded with USDT it waits for SOL alone; funded with SOL it is paid.
 */
let chain: SvmChain;
let server: SolanaRpcServer;
let payer: Payer;
let stack: Stack;
let m: MerchantCredentials;
let lines: LogLine[];
let connection: Connection;
const hot = new PublicKey(testCodec().hotWallet().address);

async function row(uuid: string): Promise<{ signed_raw: string | null; failure_reason: string | null; status: string }> {
  return (
    await stack.daemon.orm.em
      .fork()
      .execute<{ signed_raw: string | null; failure_reason: string | null; status: string }[]>('select signed_raw, failure_reason, status from withdrawals where uuid = ?', [uuid])
  )[0]!;
}

function waitingFor(uuid: string, text: string): Promise<string> {
  return eventually(
    async () => {
      const r = await row(uuid);
      return r.status === 'processing' && r.failure_reason?.startsWith('needs_operator: hot_wallet_underfunded: ') && r.failure_reason.includes(text) ? r.failure_reason : undefined;
    },
    20_000,
    `the withdrawal to wait (${text})`,
  );
}

beforeAll(async () => {
  chain = new SvmChain();
  server = new SolanaRpcServer(chain);
  await server.listen();
  payer = new Payer(chain, server.url);
  connection = new Connection(server.url, 'confirmed');
  await payer.mint(hot, 5_000_000n); // 5 USDT, and no SOL
  chain.autoProduce(25);
  const captured = captureLogger();
  lines = captured.lines;
  stack = await startStack({ logger: captured.logger, env: { SOLANA_RPC_URL: server.url, HD_MNEMONIC: TEST_MNEMONIC, SOLANA_POLL_INTERVAL_MS: '20', PAYOUT_POLL_INTERVAL_MS: '100' } });
  m = await createMerchant(stack);
  const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '40', network: 'SOLANA' })).body as { uuid: string; address: string; pay_amount: string };
  const buyer = await payer.wallet(100_000_000n);
  await payer.pay(buyer, inv.address, toBaseUnits(inv.pay_amount, 6));
  await waitForStatus(stack, m, inv.uuid, 'paid', 30_000);
}, 90_000);

afterAll(async () => {
  await stack?.stop();
  chain?.stopAuto();
  await server?.close();
});

describe('SOLANA: a hot wallet short of USDT and SOL', () => {
  it('waits with an alert naming both, never signs; paid once the wallet holds both', async () => {
    const payee = Keypair.generate().publicKey.toBase58();
    await rpc<WhitelistEntry>((cb) => stack.clients.withdrawals.addWhitelist({ merchant_id: m.merchantId, network: 'SOLANA', address: payee }, stack.operator, cb));
    await backdateWhitelist(stack.databaseUrl, m.merchantId);
    const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'SOLANA', address: payee, amount: '10' });
    expect(res.status).toBe(201);
    const uuid = res.body.uuid as string;
    const net = res.body.net_payout as string;
    const shortUsdt = toBaseUnits(net, 6) - 5_000_000n;
    const shortText = (Number(shortUsdt) / 1e6).toString(); // small exact value, for the message only
    const why = await waitingFor(uuid, ' SOL to ');
    expect(why).toMatch(
      new RegExp(
        `^needs_operator: hot_wallet_underfunded: SOLANA hot wallet ${hot.toBase58()} cannot pay this payout: send ${shortText.replace('.', '\\.')} USDT and 0\\.\\d+ SOL to ${hot.toBase58()} on SOLANA`,
      ),
    );
    await new Promise((r) => setTimeout(r, 800));
    expect(await row(uuid)).toMatchObject({ status: 'processing', signed_raw: null });
    expect(await connection.getBalance(hot)).toBe(0);
    expect(await balance(stack, m)).toEqual({ available: '30', held: '10' });
    expect(lines.filter((l) => l.withdrawalUuid === uuid && l.alert === 'hot_wallet_underfunded' && l.level === 50)).toEqual([
      expect.objectContaining({ network: 'SOLANA', wallet: hot.toBase58(), token_short: shortText, gas_coin: 'SOL' }),
    ]);

    // USDT first: it now waits for SOL alone.
    await payer.mint(hot, 100_000_000n);
    const gasOnly = await waitingFor(uuid, ': send 0.');
    expect(gasOnly).not.toContain('USDT and');
    expect((await row(uuid)).signed_raw).toBeNull();

    chain.airdrop(hot, 1);
    const done = await waitForWithdrawal(stack, m, uuid, 'completed', 30_000);
    expect(done.failure_reason).toBeNull();
    expect(await connection.getBalance(hot)).toBeLessThan(LAMPORTS_PER_SOL);
    expect(await balance(stack, m)).toEqual({ available: '30', held: '0' });
    await expectLedgerExact(stack.daemon.orm);
  });
});
