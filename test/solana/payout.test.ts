import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { SolanaAdapter } from '../../src/chains/solana/adapter';
import type { ChainAdapter } from '../../src/chains/types';
import { SolanaCodec } from '../../src/chains/solana/codec';
import { SOLANA_USDT_MINT } from '../../src/chains/solana/config';
import { EXPIRY_MARGIN_BLOCKS } from '../../src/chains/solana/payout-status';
import { ValidationError } from '../../src/domain/errors';
import { testAdapter } from './support/adapter';
import { Payer, USDT } from './support/payer';
import { SolanaRpcServer } from './support/rpc-server';
import { SvmChain } from './support/svm-chain';
import { keypairTokenAccount } from './support/token-account';

let chain: SvmChain;
let server: SolanaRpcServer;
let payer: Payer;
const adapters: SolanaAdapter[] = [];

beforeAll(async () => {
  chain = new SvmChain();
  server = new SolanaRpcServer(chain);
  await server.listen();
  payer = new Payer(chain, server.url);
});

afterAll(async () => {
  await Promise.all(adapters.map((a) => a.close()));
  await server?.close();
});

/** An adapter whose hot wallet comes from its own mnemonic, funded as asked. */
async function withHotWallet(sol: number, usdtUnits: bigint, options: Parameters<typeof testAdapter>[1] = {}): Promise<{ adapter: SolanaAdapter; hot: PublicKey }> {
  const mnemonic = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
  const codec = new SolanaCodec({ mnemonic });
  const hot = new PublicKey(codec.hotWallet().address);
  const adapter = new SolanaAdapter({
    network: 'SOLANA',
    codec,
    options: { SOLANA_RPC_URL: server.url, SOLANA_TOKEN_MINT: SOLANA_USDT_MINT, SOLANA_POLL_INTERVAL_MS: 20, SOLANA_MAX_SLOT_RANGE: 1000, SOLANA_MAX_PRIORITY_FEE: 1_000_000, ...options },
  });
  await adapter.init();
  adapters.push(adapter);
  if (sol > 0) chain.airdrop(hot, sol);
  if (usdtUnits > 0n) {
    await payer.mint(hot, usdtUnits);
    chain.advance(1 + chain.finalityLag);
  }
  return { adapter, hot };
}

describe('SOLANA payouts (adapter)', () => {
  it('refuses an off-curve payee, a hot wallet short of USDT (permanent) and one short of SOL (retried, naming wallet, balance and need)', async () => {
    const a = await testAdapter(server.url);
    adapters.push(a);
    const offCurve = getAssociatedTokenAddressSync(USDT.mint, Keypair.generate().publicKey).toBase58();
    const refused = await a.signPayout({ id: 'w-off', to: offCurve, amount: '1' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused).toMatchObject({ code: 'address_off_curve' });
    expect(a.payeeRefusal(offCurve)?.code).toBe('address_off_curve');
    expect(a.payeeRefusal(Keypair.generate().publicKey.toBase58())).toBeNull();

    const payee = Keypair.generate().publicKey.toBase58();
    await expect(a.signPayout({ id: 'w-poor', to: payee, amount: '1' })).rejects.toMatchObject({ code: 'payout_insufficient_token' });

    // On the curve, yet a token account: refused before anything is signed, naming its owner.
    const owner = Keypair.generate().publicKey;
    const onCurve = await keypairTokenAccount(payer, await payer.wallet(0n), owner, USDT);
    chain.advance(1 + chain.finalityLag);
    const tokenAccount = await a.signPayout({ id: 'w-tok', to: onCurve.toBase58(), amount: '1' }).catch((e: unknown) => e);
    expect(tokenAccount).toBeInstanceOf(ValidationError);
    expect(tokenAccount).toMatchObject({ code: 'address_token_account', field: 'to' });
    expect((tokenAccount as Error).message).toContain(owner.toBase58());
    expect(await a.payeeAccountRefusal(onCurve.toBase58())).toMatchObject({ code: 'address_token_account' });
    expect(await a.payeeAccountRefusal(owner.toBase58())).toBeNull();

    const { adapter, hot } = await withHotWallet(0, 5_000_000n);
    const short = await adapter.signPayout({ id: 'w-nosol', to: payee, amount: '1' }).catch((e: unknown) => e);
    expect(short).toMatchObject({ code: 'payout_hot_wallet_underfunded', details: { wallet: hot.toBase58(), balance: '0' } });
    expect((short as Error).message).toMatch(/send SOL to it/);
  });

  it('signs compute budget (price from recent fees, capped) + idempotent ATA + transferChecked; unknown until sent, pending until finalized, then mined', async () => {
    const { adapter, hot } = await withHotWallet(1, 50_000_000n, { SOLANA_MAX_PRIORITY_FEE: 4000 });
    const payee = Keypair.generate().publicKey.toBase58();
    const payout = await adapter.signPayout({ id: 'w-1', to: payee, amount: '2.5' });
    expect(payout.meta).toMatchObject({ payoutId: 'w-1', to: payee, amount: '2.5', from: hot.toBase58(), computeUnitPrice: '4000', attempt: 0 });
    const tx = Transaction.from(Buffer.from(payout.raw, 'base64'));
    expect(tx.instructions.map((i) => i.programId.toBase58())).toEqual([
      'ComputeBudget111111111111111111111111111111',
      'ComputeBudget111111111111111111111111111111',
      'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
      'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
    ]);
    expect(await adapter.payoutStatus(payout)).toEqual({ state: 'unknown' });
    await adapter.broadcastPayout(payout);
    await adapter.broadcastPayout(payout); // twice: harmless
    chain.produce();
    expect(await adapter.payoutStatus(payout)).toEqual({ state: 'pending' });
    const landed = chain.finalize(payout.txHash);
    expect(landed.err).toBeNull();
    expect(await adapter.payoutStatus(payout)).toMatchObject({ state: 'mined', blockHeight: landed.slot });
    expect(chain.tokenAmount(getAssociatedTokenAddressSync(USDT.mint, new PublicKey(payee)))).toBe(2_500_000n);
    chain.advance(160); // past its lastValidBlockHeight: a landed payout stays mined, never expired
    expect(await adapter.payoutStatus(payout)).toMatchObject({ state: 'mined', blockHeight: landed.slot });
  });

  it('an unsent payout: unknown up to its lastValidBlockHeight + EXPIRY_MARGIN_BLOCKS (finalized), expired from there; attempt 1 is a new transaction that lands alone', async () => {
    const { adapter } = await withHotWallet(1, 50_000_000n);
    const payee = Keypair.generate().publicKey.toBase58();
    const payout = await adapter.signPayout({ id: 'w-2', to: payee, amount: '1' });
    const lastValid = Number(payout.meta.lastValidBlockHeight);
    while (chain.at('finalized').blockHeight < lastValid + EXPIRY_MARGIN_BLOCKS - 1) chain.produce();
    expect(await adapter.payoutStatus(payout)).toEqual({ state: 'unknown' }); // within the window or its margin
    chain.produce();
    expect(chain.at('finalized').blockHeight).toBe(lastValid + EXPIRY_MARGIN_BLOCKS);
    expect(await adapter.payoutStatus(payout)).toEqual({ state: 'expired' });
    const next = await adapter.signPayout({ id: 'w-2', to: payee, amount: '1', attempt: 1 });
    expect(next.txHash).not.toBe(payout.txHash);
    expect(next.meta).toMatchObject({ attempt: 1, payoutId: 'w-2', to: payee, amount: '1' });
    expect(Number(next.meta.lastValidBlockHeight)).toBeGreaterThan(chain.at('finalized').blockHeight);
    expect(await adapter.payoutStatus(next)).toEqual({ state: 'unknown' });
    await adapter.broadcastPayout(payout); // the expired one, sent anyway: accepted and dropped
    await adapter.broadcastPayout(next);
    chain.finalize(next.txHash);
    expect(await adapter.payoutStatus(next)).toMatchObject({ state: 'mined' });
    expect(await adapter.payoutStatus(payout)).toEqual({ state: 'expired' });
    expect(chain.statuses.has(payout.txHash)).toBe(false);
    expect(chain.tokenAmount(getAssociatedTokenAddressSync(USDT.mint, new PublicKey(payee)))).toBe(1_000_000n);
  });

  it('a payout sent but not finalized stays pending, even once the finalized height passed nothing yet', async () => {
    const { adapter } = await withHotWallet(1, 50_000_000n);
    const payout = await adapter.signPayout({ id: 'w-3', to: Keypair.generate().publicKey.toBase58(), amount: '1' });
    await adapter.broadcastPayout(payout);
    chain.produce(); // landed in the tip; finalized lags
    expect(await adapter.payoutStatus(payout)).toEqual({ state: 'pending' });
    expect((adapter as ChainAdapter).bumpPayout).toBeUndefined(); // SOLANA payouts expire; they are never bumped in place
  });
});
