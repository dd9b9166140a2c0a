import { Resvg } from '@resvg/resvg-js';
import jsQR from 'jsqr';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, PublicKey } from '@solana/web3.js';
import type { ServiceError } from '@grpc/grpc-js';
import { toBaseUnits } from '../../src/chains/amount';
import { ERROR_CODE_KEY } from '../../src/grpc/errors';
import type { WhitelistEntry } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { createMerchant, eventually, rpc, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { backdateWhitelist } from '../withdrawals/support';
import { TEST_MNEMONIC, testCodec } from './support/adapter';
import { Payer, plantLookAlike, USDT } from './support/payer';
import { keypairTokenAccount } from './support/token-account';
import { SolanaRpcServer } from './support/rpc-server';
import { SvmChain, USDT_MINT } from './support/svm-chain';

jest.setTimeout(120_000);

let chain: SvmChain;
let server: SolanaRpcServer;
let payer: Payer;
let db: TestDatabase;
let stack: Stack;
let m: MerchantCredentials;
let merchantId: string;
const hot = new PublicKey(testCodec().hotWallet().address);

beforeAll(async () => {
  chain = new SvmChain();
  server = new SolanaRpcServer(chain);
  await server.listen();
  payer = new Payer(chain, server.url);
  chain.airdrop(hot, 2);
  await payer.mint(hot, 1_000_000_000n); // 1,000 USDT for payouts
  chain.autoProduce(25);
  db = await createTestDatabase('cp_solana_daemon');
  stack = await startStack({
    database: db,
    env: { SOLANA_RPC_URL: server.url, HD_MNEMONIC: TEST_MNEMONIC, SOLANA_POLL_INTERVAL_MS: '20', PAYOUT_POLL_INTERVAL_MS: '100' },
  });
  m = await createMerchant(stack);
  merchantId = m.merchantId;
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await db?.drop();
  chain?.stopAuto();
  await server?.close();
});

async function invoice(amount: string) {
  const res = await signed(stack, m, 'POST', '/v1/invoices', { amount, network: 'SOLANA' });
  if (res.status !== 201) throw new Error(`create invoice: ${res.status} ${res.text}`);
  return res.body as { uuid: string; address: string; pay_amount: string; qr_svg: string };
}

/** What a phone camera does with the invoice's QR code: draw it (resvg), read it (jsQR). */
function scan(svg: string): string | null {
  const image = new Resvg(svg, { fitTo: { mode: 'width', value: 300 } }).render();
  return jsQR(new Uint8ClampedArray(image.pixels), image.width, image.height)?.data ?? null;
}

async function whitelisted(address: string): Promise<void> {
  await rpc<WhitelistEntry>((cb) => stack.clients.withdrawals.addWhitelist({ merchant_id: merchantId, network: 'SOLANA', address }, stack.operator, cb));
  await backdateWhitelist(db.url, merchantId);
}

async function withdrawalRow(uuid: string): Promise<{ status: string; tx_hash: string | null; signed_meta: Record<string, string | number> | null }> {
  const rows = await stack.daemon.orm.em
    .fork()
    .execute<{ status: string; tx_hash: string | null; signed_meta: Record<string, string | number> | null }[]>('select status, tx_hash, signed_meta from withdrawals where uuid = ?', [uuid]);
  return rows[0]!;
}

const ata = (owner: string): PublicKey => getAssociatedTokenAddressSync(USDT.mint, new PublicKey(owner));

describe('SOLANA live daemon on the litesvm harness', () => {
  it('invoices paid into a new ATA and into an existing ATA go to paid, once; the QR link is Solana Pay', async () => {
    const buyer = await payer.wallet(100_000_000n);
    const fresh = await invoice('10');
    const existing = await invoice('5');
    expect(scan(fresh.qr_svg)).toBe(`solana:${fresh.address}?amount=${fresh.pay_amount}&spl-token=${USDT_MINT}`);
    await payer.createAta(buyer, new PublicKey(existing.address));
    await eventually(async () => (chain.tokenAmount(ata(existing.address)) === 0n ? true : undefined), 5000, 'existing ATA');
    const s1 = await payer.pay(buyer, fresh.address, toBaseUnits(fresh.pay_amount, 6));
    const s2 = await payer.pay(buyer, existing.address, toBaseUnits(existing.pay_amount, 6), USDT, false);
    const paid1 = await waitForStatus(stack, m, fresh.uuid, 'paid', 30_000);
    const paid2 = await waitForStatus(stack, m, existing.uuid, 'paid', 30_000);
    expect(paid1).toMatchObject({ tx_hash: s1, received_amount: fresh.pay_amount });
    expect(paid2).toMatchObject({ tx_hash: s2, received_amount: existing.pay_amount });
    for (const inv of [paid1, paid2]) expect(inv.payments).toHaveLength(1);
    const balance = (await signed(stack, m, 'GET', '/v1/balance')).body as { available: string };
    expect(balance.available).toBe('15');
  });

  it('an off-curve payee (a token account pasted instead of its owner) is refused at whitelisting and at withdrawal: 422 address_off_curve', async () => {
    const tokenAccount = ata(Keypair.generate().publicKey.toBase58()).toBase58();
    const err = await rpc((cb) => stack.clients.withdrawals.addWhitelist({ merchant_id: merchantId, network: 'SOLANA', address: tokenAccount }, stack.operator, cb)).then(
      () => null,
      (e: ServiceError) => e,
    );
    expect(err?.metadata.get(ERROR_CODE_KEY)).toEqual(['address_off_curve']);
    const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'SOLANA', address: tokenAccount, amount: '3' });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'address_off_curve', field: 'address' });
    const rows = await stack.daemon.orm.em.fork().execute('select 1 from withdrawal_whitelist where address = ?', [tokenAccount]);
    expect(rows).toHaveLength(0);
  });

  it('a token account made from a keypair (on the curve; Token or Token-2022) is refused at whitelisting and at withdrawal: 422 address_token_account naming its owner', async () => {
    const funder = await payer.wallet(0n);
    const owner = Keypair.generate().publicKey;
    const classic = await keypairTokenAccount(payer, funder, owner, USDT);
    const lookAlike = plantLookAlike(chain);
    const t22 = await keypairTokenAccount(payer, funder, owner, lookAlike);
    await eventually(async () => (chain.tokenAmount(classic) === 0n && chain.tokenAmount(t22) === 0n ? true : undefined), 5000, 'token accounts created');
    for (const address of [classic.toBase58(), t22.toBase58()]) {
      expect(PublicKey.isOnCurve(new PublicKey(address).toBytes())).toBe(true); // today's off-curve check lets it through
      const err = await rpc((cb) => stack.clients.withdrawals.addWhitelist({ merchant_id: merchantId, network: 'SOLANA', address }, stack.operator, cb)).then(
        () => null,
        (e: ServiceError) => e,
      );
      expect(err?.metadata.get(ERROR_CODE_KEY)).toEqual(['address_token_account']);
      expect(err?.details).toContain(owner.toBase58());
      const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'SOLANA', address, amount: '3' });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'address_token_account', field: 'address' });
      expect(res.body.error.message).toContain(owner.toBase58());
      const rows = await stack.daemon.orm.em.fork().execute('select 1 from withdrawal_whitelist where address = ?', [address]);
      expect(rows).toHaveLength(0);
    }
    // The owner itself is a wallet: listed.
    await rpc<WhitelistEntry>((cb) => stack.clients.withdrawals.addWhitelist({ merchant_id: merchantId, network: 'SOLANA', address: owner.toBase58() }, stack.operator, cb));
  });

  it('a payout to a wallet without an ATA creates it and transfers once; completed with its signature', async () => {
    const payee = Keypair.generate().publicKey.toBase58();
    await whitelisted(payee);
    expect(chain.tokenAmount(ata(payee))).toBeNull();
    const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'SOLANA', address: payee, amount: '4', reference: 'sol-1' });
    expect(res.status).toBe(201);
    const uuid = (res.body as { uuid: string }).uuid;
    const done = await eventually(
      async () => {
        const w = (await signed(stack, m, 'GET', `/v1/withdrawals/${uuid}`)).body as { status: string; tx_hash: string; net_payout: string };
        return w.status === 'completed' ? w : undefined;
      },
      30_000,
      'payout completed',
    );
    expect(chain.tokenAmount(ata(payee))).toBe(toBaseUnits(done.net_payout, 6));
    const landed = chain.statuses.get(done.tx_hash)!;
    expect(landed.err).toBeNull();
    const tx = chain.blocks.get(landed.slot)!.transactions.find((t) => t.signatures[0] === done.tx_hash)!;
    const programs = tx.accountKeys.map((k) => k.pubkey);
    expect(programs).toEqual(expect.arrayContaining(['ComputeBudget111111111111111111111111111111', 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL']));
    expect((await withdrawalRow(uuid)).signed_meta).toMatchObject({ attempt: 0, from: hot.toBase58() });
    expect((await withdrawalRow(uuid)).signed_meta).not.toHaveProperty('expired_tx_hashes');
  });

  it('a payout never delivered (dropped) is resent until its blockhash expires, then (reported expired) signed anew exactly once, without waiting for PAYOUT_BUMP_AFTER_MS', async () => {
    const payee = Keypair.generate().publicKey.toBase58();
    await whitelisted(payee);
    server.dropSends = true;
    const sends = server.count('sendTransaction');
    const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'SOLANA', address: payee, amount: '3', reference: 'sol-expired' });
    const uuid = (res.body as { uuid: string }).uuid;
    await eventually(async () => (server.count('sendTransaction') >= sends + 3 ? true : undefined), 20_000, 'resent while valid');
    const first = (await withdrawalRow(uuid)).signed_meta!;
    chain.stopAuto();
    chain.advance(160); // past lastValidBlockHeight, with the first version never landed
    expect(chain.at('finalized').blockHeight).toBeGreaterThan(Number(first.lastValidBlockHeight));
    server.dropSends = false;
    chain.autoProduce(25);
    const done = await eventually(
      async () => {
        const w = (await signed(stack, m, 'GET', `/v1/withdrawals/${uuid}`)).body as { status: string; tx_hash: string; net_payout: string };
        return w.status === 'completed' ? w : undefined;
      },
      30_000,
      'payout re-signed and completed',
    );
    const row = await withdrawalRow(uuid);
    expect(row.signed_meta).toMatchObject({ attempt: 1, expired_tx_hashes: String(first.latest_tx_hash) });
    expect(done.tx_hash).toBe(row.signed_meta!.latest_tx_hash);
    expect(done.tx_hash).not.toBe(first.latest_tx_hash);
    expect(chain.statuses.has(String(first.latest_tx_hash))).toBe(false);
    expect(chain.tokenAmount(ata(payee))).toBe(toBaseUnits(done.net_payout, 6));
  });
});
