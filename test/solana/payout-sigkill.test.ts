import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, PublicKey } from '@solana/web3.js';
import { toBaseUnits } from '../../src/chains/amount';
import type { CreateMerchantResponse } from '../../src/grpc/generated/chainpay/v1/merchants';
import type { CreateInvoiceResponse, Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import type { CreateWithdrawalResponse, Withdrawal } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { grpcPortFrom, spawnTs, type Spawned } from '../support/processes';
import { eventually, rpc } from '../support/stack';
import { backdateWhitelist, processRpcs, whitelist, type Rpcs } from '../withdrawals/support';
import { TEST_MNEMONIC, testCodec } from './support/adapter';
import { Payer, USDT } from './support/payer';
import { SolanaRpcServer } from './support/rpc-server';
import { SvmChain } from './support/svm-chain';

jest.setTimeout(300_000);

/**
 * A SOLANA payout interrupted by SIGKILL after its signed transaction (and lastValidBlockHeight)
 * was stored and before it was sent: after a restart the stored transaction is sent, never a second
 * one; and when the daemon stayed down until that transaction expired, it is signed anew exactly once.
 */
describe('a SOLANA payout interrupted by SIGKILL between store and send', () => {
  let chain: SvmChain;
  let server: SolanaRpcServer;
  let payer: Payer;
  let db: TestDatabase;
  const running: Spawned[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-sol-kill-'));
  const hot = new PublicKey(testCodec().hotWallet().address);

  async function startProcess(killAt?: string) {
    const proc = spawnTs('src/main.ts', {
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      GRPC_PORT: '0',
      CHAINPAY_TEST_KILL_AT: killAt,
      PAYOUT_POLL_INTERVAL_MS: '100',
      HD_MNEMONIC: TEST_MNEMONIC,
      SOLANA_RPC_URL: server.url,
      SOLANA_POLL_INTERVAL_MS: '20',
    });
    running.push(proc);
    const ended = new Promise<number | null>((resolve) => proc.child.once('close', (code) => resolve(code)));
    // The daemon listens once its watcher caught up with the chain (up to 30 s on a loaded machine).
    const address = `127.0.0.1:${grpcPortFrom(await proc.waitFor(/gRPC server listening/, 90_000))}`;
    return { proc, ended, ...processRpcs(address, dataDir) };
  }

  async function fund(r: Rpcs, merchantId: string, amount: string): Promise<void> {
    const md = r.forMerchant(merchantId);
    const inv = (await rpc<CreateInvoiceResponse>((cb) => r.invoices.createInvoice({ amount, network: 'SOLANA' }, md, cb))).invoice!;
    const buyer = await payer.wallet(toBaseUnits(inv.pay_amount, 6));
    await payer.pay(buyer, inv.address!, toBaseUnits(inv.pay_amount, 6));
    await eventually(async () => ((await rpc<Invoice>((cb) => r.invoices.getInvoice({ uuid: inv.uuid }, md, cb))).status === 'paid' ? true : undefined), 60_000, 'funding invoice paid');
  }

  async function signedRow(reference: string): Promise<{ uuid: string; status: string; tx_hash: string | null; signed_meta: Record<string, string | number> }> {
    const { Client } = await import('pg');
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      const res = await client.query('select uuid, status, tx_hash, signed_meta from withdrawals where reference = $1', [reference]);
      return res.rows[0];
    } finally {
      await client.end();
    }
  }

  const ata = (owner: string): PublicKey => getAssociatedTokenAddressSync(USDT.mint, new PublicKey(owner));

  beforeAll(async () => {
    chain = new SvmChain();
    server = new SolanaRpcServer(chain);
    await server.listen();
    payer = new Payer(chain, server.url);
    chain.airdrop(hot, 2);
    await payer.mint(hot, 1_000_000_000n);
    chain.autoProduce(25);
    db = await createTestDatabase('cp_solkill');
  }, 60_000);

  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    chain?.stopAuto();
    await server?.close();
    await db?.drop();
  });

  /** Creates the withdrawal on a daemon that dies right after storing the signed payout; returns the stored row. */
  async function killedAfterSign(r: Rpcs, merchantId: string, payee: string, reference: string, ended: Promise<number | null>) {
    await whitelist(r, merchantId, 'SOLANA', payee);
    await backdateWhitelist(db.url, merchantId);
    await rpc<CreateWithdrawalResponse>((cb) => r.withdrawals.createWithdrawal({ network: 'SOLANA', address: payee, amount: '10', reference }, r.forMerchant(merchantId), cb)).catch(() => null);
    expect(await ended).toBeNull(); // SIGKILL
    chain.stopAuto(); // the chain waits while the daemon is down (unless a test moves it)
    const row = await signedRow(reference);
    expect(row).toMatchObject({ status: 'processing', tx_hash: null });
    expect(Number(row.signed_meta.lastValidBlockHeight)).toBeGreaterThan(chain.tip().blockHeight);
    expect(server.sent).not.toContain(row.signed_meta.latest_tx_hash); // stored, never sent
    return row;
  }

  async function completed(c: Awaited<ReturnType<typeof startProcess>>, merchantId: string, uuid: string): Promise<Withdrawal> {
    return eventually(
      async () => {
        const w = await rpc<Withdrawal>((cb) => c.r.withdrawals.getWithdrawal({ uuid }, c.r.forMerchant(merchantId), cb));
        return w.status === 'completed' ? w : undefined;
      },
      60_000,
      'the interrupted withdrawal to complete',
    );
  }

  it('restarted while the stored transaction is valid: it is the one sent and landed; exactly one transfer', async () => {
    const a = await startProcess('after_sign');
    const merchantId = (await rpc<CreateMerchantResponse>((cb) => a.merchants.createMerchant({ name: 'Solana kill shop' }, a.r.operator, cb))).merchant!.merchant_id;
    await fund(a.r, merchantId, '40');
    const payee = Keypair.generate().publicKey.toBase58();
    const row = await killedAfterSign(a.r, merchantId, payee, 'sol-kill-1', a.ended);
    a.close();

    const c = await startProcess();
    chain.autoProduce(25);
    try {
      const done = await completed(c, merchantId, row.uuid);
      expect(done.tx_hash).toBe(row.signed_meta.latest_tx_hash);
      expect(c.proc.output()).toMatch(/reusing the persisted transaction/);
      expect(c.proc.output()).not.toMatch(/payout signed and persisted/);
      expect(chain.tokenAmount(ata(payee))).toBe(toBaseUnits(done.net_payout, 6));
      // One transfer: the payee's account holds exactly the net payout (a second one would double it).
    } finally {
      c.close();
      c.proc.child.kill('SIGTERM');
      await c.ended;
    }
  });

  it('down until the stored transaction expired: after restart it is signed anew exactly once, one transfer', async () => {
    const a = await startProcess('after_sign');
    const merchantId = (await rpc<CreateMerchantResponse>((cb) => a.merchants.createMerchant({ name: 'Solana expiry shop' }, a.r.operator, cb))).merchant!.merchant_id;
    chain.autoProduce(25);
    await fund(a.r, merchantId, '40');
    const payee = Keypair.generate().publicKey.toBase58();
    const row = await killedAfterSign(a.r, merchantId, payee, 'sol-kill-2', a.ended);
    a.close();
    chain.advance(160); // while the daemon is down: past lastValidBlockHeight
    expect(chain.at('finalized').blockHeight).toBeGreaterThan(Number(row.signed_meta.lastValidBlockHeight));

    const c = await startProcess();
    chain.autoProduce(25);
    try {
      const done = await completed(c, merchantId, row.uuid);
      const after = await signedRow('sol-kill-2');
      expect(after.signed_meta).toMatchObject({ attempt: 1, expired_tx_hashes: row.signed_meta.latest_tx_hash });
      expect(done.tx_hash).toBe(after.signed_meta.latest_tx_hash);
      expect(done.tx_hash).not.toBe(row.signed_meta.latest_tx_hash);
      expect(chain.statuses.has(String(row.signed_meta.latest_tx_hash))).toBe(false);
      expect(chain.tokenAmount(ata(payee))).toBe(toBaseUnits(done.net_payout, 6));
      expect(c.proc.output().match(/"expiredTxHash"/g)).toHaveLength(1);
    } finally {
      c.close();
      c.proc.child.kill('SIGTERM');
      await c.ended;
    }
  });
});
