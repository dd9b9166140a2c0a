import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, PublicKey } from '@solana/web3.js';
import { SolanaAdapter } from '../../src/chains/solana/adapter';
import { SolanaCodec } from '../../src/chains/solana/codec';
import { EXPIRY_MARGIN_BLOCKS } from '../../src/chains/solana/payout-status';
import type { PayoutStatus, SignedPayout } from '../../src/chains/types';
import { SOLANA_USDT_MINT } from '../../src/chains/solana/config';
import { LaggingStatusNode } from './support/lagging-node';
import { Payer, USDT } from './support/payer';
import { SolanaRpcServer } from './support/rpc-server';
import { SvmChain } from './support/svm-chain';

/**
 * A load-balanced provider whose second node lags 40 blocks: it answers getSignatureStatuses at the
 * worst moment (a payout landed late in its blockhash's window, the finalized chain past that
 * window), or every other call; it does not have the payout yet.
 * The host's rule is replayed as PayoutSteps applies it: `unknown` sends the stored transaction
 * again, `expired` signs attempt + 1 and sends it. One payout, one signature, one transfer.
 */
describe('SOLANA payout status behind a lagging load-balanced node', () => {
  let chain: SvmChain;
  let server: SolanaRpcServer;
  let node: LaggingStatusNode;
  let payer: Payer;
  let adapter: SolanaAdapter;
  const mnemonic = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
  const hot = new PublicKey(new SolanaCodec({ mnemonic }).hotWallet().address);

  beforeAll(async () => {
    chain = new SvmChain();
    server = new SolanaRpcServer(chain);
    await server.listen();
    node = new LaggingStatusNode(chain, server, { lagBlocks: 40, every: 0 });
    payer = new Payer(chain, server.url);
    chain.airdrop(hot, 2);
    await payer.mint(hot, 100_000_000n);
    chain.advance(1 + chain.finalityLag);
    adapter = new SolanaAdapter({
      network: 'SOLANA',
      codec: new SolanaCodec({ mnemonic }),
      options: { SOLANA_RPC_URL: server.url, SOLANA_TOKEN_MINT: SOLANA_USDT_MINT, SOLANA_POLL_INTERVAL_MS: 20, SOLANA_MAX_SLOT_RANGE: 1000, SOLANA_MAX_PRIORITY_FEE: 1_000_000 },
    });
    await adapter.init();
  });

  afterAll(async () => {
    await adapter?.close();
    await server?.close();
  });

  const payeeUnits = (payee: string): bigint | null => chain.tokenAmount(getAssociatedTokenAddressSync(USDT.mint, new PublicKey(payee)));

  /**
   * The host's loop over one payout (PayoutSteps.check / sign): a status check every 3 blocks
   * (PAYOUT_POLL_INTERVAL_MS 1 s against mainnet's 400 ms slots).
   */
  async function hostLoop(first: SignedPayout, payee: string, blocks: number): Promise<{ signed: SignedPayout[]; states: PayoutStatus['state'][] }> {
    const signed = [first];
    const states: PayoutStatus['state'][] = [];
    for (let i = 0; i < blocks; i++) {
      const current = signed[signed.length - 1]!;
      const status = await adapter.payoutStatus(current);
      states.push(status.state);
      if (status.state === 'mined') break;
      if (status.state === 'unknown') await adapter.broadcastPayout(current);
      if (status.state === 'expired') {
        const next = await adapter.signPayout({ id: 'w-lag', to: payee, amount: '1', attempt: signed.length });
        signed.push(next);
        await adapter.broadcastPayout(next);
      }
      chain.advance(3);
    }
    return { signed, states };
  }

  it('a payout that lands in the last block of its window is mined once, never signed again, whatever the lagging node says', async () => {
    const payee = Keypair.generate().publicKey.toBase58();
    const sentBefore = server.sent.length;
    const payout = await adapter.signPayout({ id: 'w-lag', to: payee, amount: '1' });
    const lastValid = Number(payout.meta.lastValidBlockHeight);
    // A busy leader schedule: every send is dropped until the window's last block.
    server.dropSends = true;
    await adapter.broadcastPayout(payout);
    while (chain.tip().blockHeight < lastValid - 1) chain.produce();
    server.dropSends = false;
    node.worstMoment = true;
    await adapter.broadcastPayout(payout);
    chain.produce();
    expect(chain.statuses.get(payout.txHash)).toBeDefined(); // landed at lastValidBlockHeight
    expect(chain.tip().blockHeight).toBe(lastValid);

    const { signed, states } = await hostLoop(payout, payee, 40);

    expect(payeeUnits(payee)).toBe(1_000_000n); // paid once
    expect(node.staleMisses).toBeGreaterThan(0); // the lagging node did answer "not found" after the window
    expect(states).not.toContain('expired');
    expect(states[states.length - 1]).toBe('mined');
    expect(signed.map((s) => s.txHash)).toEqual([payout.txHash]);
    expect(new Set(server.sent.slice(sentBefore))).toEqual(new Set([payout.txHash]));
    node.worstMoment = false;
  });

  it('an unsent payout is expired only on a node at or past the finalized slot, EXPIRY_MARGIN_BLOCKS after its window', async () => {
    node.every = 2;
    const payee = Keypair.generate().publicKey.toBase58();
    const payout = await adapter.signPayout({ id: 'w-gone', to: payee, amount: '1' });
    const lastValid = Number(payout.meta.lastValidBlockHeight);
    const states: PayoutStatus['state'][] = [];
    while (chain.at('finalized').blockHeight < lastValid + EXPIRY_MARGIN_BLOCKS) {
      states.push((await adapter.payoutStatus(payout)).state);
      chain.produce();
    }
    expect(new Set(states)).toEqual(new Set(['unknown']));
    // Two answers in a row: one from each node; only the up-to-date one proves the absence.
    const answers = [(await adapter.payoutStatus(payout)).state, (await adapter.payoutStatus(payout)).state];
    expect(answers.sort()).toEqual(['expired', 'unknown']);
    node.every = 0;
  });
});
