import { Address, toNano } from '@ton/core';
import type { TonAdapter } from '../../src/chains/ton';
import { TON_CALL_ATTEMPTS } from '../../src/chains/ton/client';
import type { SignedPayout } from '../../src/chains/types';
import { serviceWallet, tonAdapter } from './support/adapter';
import { startRateLimitProxy, type RateLimitProxy } from './support/rate-limit-proxy';
import { SandboxChain } from './support/sandbox-chain';
import { startToncenter, type ToncenterServer } from './support/toncenter-server';

let chain: SandboxChain;
let server: ToncenterServer;
let proxy: RateLimitProxy;
let adapter: TonAdapter;
let signer: TonAdapter;
/** Payouts that ran and arrived: each status check reads our jetton wallet (its trail, the head for confirmations). */
const payouts: SignedPayout[] = [];

beforeAll(async () => {
  chain = await SandboxChain.create();
  server = await startToncenter(chain);
  proxy = await startRateLimitProxy(server.url, 1000);
  adapter = tonAdapter(chain, server, { rpcUrl: proxy.url, pollIntervalMs: 1000 }); // a state is fresh for 1 s
  await adapter.init();
  // The payouts are made by another adapter straight on the harness: only the status checks go through the proxy.
  signer = tonAdapter(chain, server);
  await signer.init();
  const service = serviceWallet(signer);
  await chain.pay({ to: service, amount: 100_000_000n });
  await chain.fund(service, toNano('5'));
  const payee = (await chain.blockchain.treasury('payee')).address;
  for (let i = 0; i < 4; i++) {
    const p = await signer.signPayout({ id: `shared-state-${i}`, to: payee.toString(), amount: '1' });
    await signer.broadcastPayout(p);
    payouts.push(p);
  }
  expect(await chain.jettonBalance(payee)).toBe(4_000_000n);
}, 60_000);

afterAll(async () => {
  await signer?.close();
  await adapter?.close();
  await proxy?.close();
  await server?.close();
});

function stateReadsOf(address: string, since: number): number {
  const target = Address.parse(address);
  return proxy.arrivals.filter((a) => a.at >= since && a.method === 'getAddressInformation' && a.address !== null && Address.parse(a.address).equals(target)).length;
}

describe('TON: one read of our jetton wallet serves every reader of a round', () => {
  it("the status checks of several payouts share reads of our jetton wallet's state: fewer reads than checks", async () => {
    const jw = adapter.ourJettonWallet();
    const since = proxy.elapsed();
    const statuses = await Promise.all(payouts.map((p) => adapter.payoutStatus(p)));
    // The shared state still answers each check: every payout arrived, confirmed at a block.
    expect(statuses.map((s) => s.state)).toEqual(payouts.map(() => 'mined'));
    for (const s of statuses) expect(s).toMatchObject({ blockHeight: expect.any(Number), confirmations: expect.any(Number) });
    // Each check reads our jetton wallet twice (its trail, then the head): 8 reads unshared.
    const reads = stateReadsOf(jw, since);
    expect(reads).toBeGreaterThanOrEqual(1);
    expect(reads).toBeLessThan(payouts.length);
  });

  it('a read older than the window is made again, and a failed read is not kept', async () => {
    const jw = adapter.ourJettonWallet();
    await new Promise((r) => setTimeout(r, 1100));
    const since = proxy.elapsed();
    await expect(adapter.payoutStatus(payouts[0]!)).resolves.toMatchObject({ state: 'mined' });
    expect(stateReadsOf(jw, since)).toBeGreaterThanOrEqual(1);
    // A read that failed for good is reported to its reader and not kept for the next one.
    await new Promise((r) => setTimeout(r, 1100));
    server.failNext('getAddressInformation', TON_CALL_ATTEMPTS);
    await expect(adapter.payoutStatus(payouts[1]!)).rejects.toMatchObject({ code: 'ton_provider_unavailable' });
    await expect(adapter.payoutStatus(payouts[1]!)).resolves.toMatchObject({ state: 'mined' });
  });
});
