import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, PublicKey } from '@solana/web3.js';
import { toBaseUnits } from '../../src/chains/amount';
import type { WhitelistEntry } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { createMerchant, eventually, rpc, signed, startStack, type MerchantCredentials, type Stack } from '../support/stack';
import { backdateWhitelist } from '../withdrawals/support';
import { TEST_MNEMONIC, testCodec } from './support/adapter';
import { LaggingStatusNode } from './support/lagging-node';
import { Payer, USDT } from './support/payer';
import { SolanaRpcServer } from './support/rpc-server';
import { SvmChain } from './support/svm-chain';

jest.setTimeout(120_000);

/**
 * The live daemon behind a load-balanced provider whose second node lags 40 blocks: a payout that
 * lands in the last block of its blockhash's window is then asked about while the finalized chain
 * is past that window, and the lagging node answers "not found". The withdrawal completes with its
 * one signature; no second transaction is signed or sent, and the payee is paid once.
 */
describe('a SOLANA payout on a daemon behind a lagging load-balanced node', () => {
  let chain: SvmChain;
  let server: SolanaRpcServer;
  let node: LaggingStatusNode;
  let db: TestDatabase;
  let stack: Stack;
  let m: MerchantCredentials;
  const hot = new PublicKey(testCodec().hotWallet().address);

  beforeAll(async () => {
    chain = new SvmChain();
    server = new SolanaRpcServer(chain);
    await server.listen();
    node = new LaggingStatusNode(chain, server, { lagBlocks: 40, every: 0 });
    const payer = new Payer(chain, server.url);
    chain.airdrop(hot, 2);
    await payer.mint(hot, 1_000_000_000n);
    chain.autoProduce(25);
    db = await createTestDatabase('cp_sollag');
    stack = await startStack({
      database: db,
      env: { SOLANA_RPC_URL: server.url, HD_MNEMONIC: TEST_MNEMONIC, SOLANA_POLL_INTERVAL_MS: '20', PAYOUT_POLL_INTERVAL_MS: '100', SOLANA_CONFIRMATIONS: '1' },
    });
    m = await createMerchant(stack);
    const buyer = await payer.wallet(100_000_000n);
    const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '20', network: 'SOLANA' })).body as { uuid: string; address: string; pay_amount: string };
    await payer.pay(buyer, inv.address, 20_000_000n + 1_000_000n);
    await eventually(async () => (((await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body as { status: string }).status !== 'pending' ? true : undefined), 30_000, 'funded');
  }, 90_000);

  afterAll(async () => {
    await stack?.stop();
    await db?.drop();
    chain?.stopAuto();
    await server?.close();
  });

  async function signedMeta(uuid: string): Promise<Record<string, string | number> | null> {
    const rows = await stack.daemon.orm.em.fork().execute<{ signed_meta: Record<string, string | number> | null }[]>('select signed_meta from withdrawals where uuid = ?', [uuid]);
    return rows[0]?.signed_meta ?? null;
  }

  it('lands in the last block of its window, the lagging node says "not found" past it: completed once, one signature', async () => {
    const payee = Keypair.generate().publicKey.toBase58();
    await rpc<WhitelistEntry>((cb) => stack.clients.withdrawals.addWhitelist({ merchant_id: m.merchantId, network: 'SOLANA', address: payee }, stack.operator, cb));
    await backdateWhitelist(db.url, m.merchantId);
    server.dropSends = true; // leaders drop every send until the window's last block
    const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'SOLANA', address: payee, amount: '5', reference: 'sol-lag' });
    expect(res.status).toBe(201);
    const uuid = (res.body as { uuid: string }).uuid;
    const meta = await eventually(async () => (await signedMeta(uuid)) ?? undefined, 20_000, 'payout signed');
    chain.stopAuto();
    const lastValid = Number(meta.lastValidBlockHeight);
    while (chain.tip().blockHeight < lastValid - 1) chain.produce();
    node.worstMoment = true;
    server.dropSends = false;
    const sends = server.sent.length;
    await eventually(async () => (server.sent.length > sends ? true : undefined), 10_000, 'sent again');
    chain.produce(); // lands at lastValidBlockHeight
    expect(chain.statuses.get(String(meta.latest_tx_hash))).toMatchObject({ err: null });

    // Blocks at the host's poll pace: the finalized chain passes the window while the lagging node answers.
    const done = await eventually(
      async () => {
        await new Promise((r) => setTimeout(r, 125));
        chain.produce();
        const w = (await signed(stack, m, 'GET', `/v1/withdrawals/${uuid}`)).body as { status: string; tx_hash: string; net_payout: string };
        return w.status === 'completed' ? w : undefined;
      },
      60_000,
      'completed',
    );
    node.worstMoment = false;
    chain.autoProduce(25);

    expect(node.staleMisses).toBeGreaterThan(0);
    expect(done.tx_hash).toBe(meta.latest_tx_hash);
    const after = (await signedMeta(uuid))!;
    expect(after.attempt).toBe(0);
    expect(after.expired_tx_hashes).toBeUndefined();
    expect(new Set(server.sent.slice(sends))).toEqual(new Set([meta.latest_tx_hash]));
    expect(chain.tokenAmount(getAssociatedTokenAddressSync(USDT.mint, new PublicKey(payee)))).toBe(toBaseUnits(done.net_payout, 6)); // paid once
  });
});
