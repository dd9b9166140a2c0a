import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, PublicKey, VersionedTransaction } from '@solana/web3.js';
import { SolanaAdapter } from '../../src/chains/solana/adapter';
import { SolanaCodec } from '../../src/chains/solana/codec';
import { DEFAULT_MIN_PRIORITY_FEE, SOLANA_USDT_MINT } from '../../src/chains/solana/config';
import { BusyLeader } from './support/busy-leader';
import { Payer, USDT } from './support/payer';
import { SolanaRpcServer } from './support/rpc-server';
import { SvmChain } from './support/svm-chain';

/** Slot time here, and the re-send period in the same proportion as mainnet's 2 s to 400 ms slots. */
const SLOT_MS = 20;
const RESEND_MS = 5 * SLOT_MS;

/**
 * Payouts that land under load: a priority fee at least SOLANA_MIN_PRIORITY_FEE although recent
 * fees of our accounts say 0, a `confirmed` blockhash, and the signed transaction sent again until
 * it lands. The busy harness drops 90% of sends below the market fee, 30% at or above it. The host
 * is not polling here: what lands, lands from broadcastPayout alone.
 */
describe('SOLANA payouts on a busy harness', () => {
  let chain: SvmChain;
  let server: SolanaRpcServer;
  let leader: BusyLeader;
  let adapter: SolanaAdapter;
  const mnemonic = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
  const hot = new PublicKey(new SolanaCodec({ mnemonic }).hotWallet().address);

  beforeAll(async () => {
    chain = new SvmChain();
    server = new SolanaRpcServer(chain);
    await server.listen();
    leader = new BusyLeader(server, 1);
    const payer = new Payer(chain, server.url);
    chain.airdrop(hot, 2);
    await payer.mint(hot, 100_000_000n);
    chain.advance(1 + chain.finalityLag);
    adapter = new SolanaAdapter({
      network: 'SOLANA',
      codec: new SolanaCodec({ mnemonic }),
      options: { SOLANA_RPC_URL: server.url, SOLANA_TOKEN_MINT: SOLANA_USDT_MINT, SOLANA_POLL_INTERVAL_MS: 20, SOLANA_MAX_SLOT_RANGE: 1000, SOLANA_MAX_PRIORITY_FEE: 1_000_000 },
      resendIntervalMs: RESEND_MS,
    });
    await adapter.init();
  });

  afterAll(async () => {
    chain?.stopAuto();
    await adapter?.close();
    await server?.close();
  });

  it('signs at the floor price with a confirmed blockhash, and lands from one broadcast by sending it again', async () => {
    leader.busy = true;
    const payee = Keypair.generate().publicKey.toBase58();
    const payout = await adapter.signPayout({ id: 'w-busy', to: payee, amount: '1' });
    // Recent fees of our token accounts are 0 in most slots: the floor sets the price.
    expect(payout.meta.computeUnitPrice).toBe(String(DEFAULT_MIN_PRIORITY_FEE));
    expect(BusyLeader.price(VersionedTransaction.deserialize(Buffer.from(payout.raw, 'base64')))).toBe(DEFAULT_MIN_PRIORITY_FEE);
    // `confirmed`: the tip's blockhash (finalized lags), so the whole 150-block window is ahead.
    expect(payout.meta.blockhash).toBe(chain.tip().blockhash);
    expect(Number(payout.meta.lastValidBlockHeight)).toBe(chain.tip().blockHeight + 150);

    await adapter.broadcastPayout(payout);
    chain.autoProduce(SLOT_MS);
    const lastValid = Number(payout.meta.lastValidBlockHeight);
    while (!chain.statuses.has(payout.txHash) && chain.tip().blockHeight <= lastValid) await new Promise((r) => setTimeout(r, SLOT_MS));
    chain.stopAuto();

    expect(chain.statuses.get(payout.txHash)).toMatchObject({ err: null }); // landed, in its window
    expect(leader.sends.get(payout.txHash)).toBeGreaterThan(1); // the first send alone did not make it on this seed
    expect(leader.dropped).toBeGreaterThan(0);
    chain.finalize(payout.txHash);
    expect(await adapter.payoutStatus(payout)).toMatchObject({ state: 'mined' });
    expect(chain.tokenAmount(getAssociatedTokenAddressSync(USDT.mint, new PublicKey(payee)))).toBe(1_000_000n);
    // Landed: no more sends of it.
    const sends = leader.sends.get(payout.txHash);
    await new Promise((r) => setTimeout(r, 3 * RESEND_MS));
    expect(leader.sends.get(payout.txHash)).toBe(sends);
    leader.busy = false;
  });
});
