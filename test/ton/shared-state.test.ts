import { Address } from '@ton/core';
import type { TonAdapter } from '../../src/chains/ton';
import { TON_CALL_ATTEMPTS } from '../../src/chains/ton/client';
import type { SignedPayout } from '../../src/chains/types';
import { tonAdapter } from './support/adapter';
import { startRateLimitProxy, type RateLimitProxy } from './support/rate-limit-proxy';
import { SandboxChain } from './support/sandbox-chain';
import { startToncenter, type ToncenterServer } from './support/toncenter-server';

let chain: SandboxChain;
let server: ToncenterServer;
let proxy: RateLimitProxy;
let adapter: TonAdapter;

beforeAll(async () => {
  chain = await SandboxChain.create();
  server = await startToncenter(chain);
  proxy = await startRateLimitProxy(server.url, 1000);
  adapter = tonAdapter(chain, server, { rpcUrl: proxy.url, pollIntervalMs: 1000 }); // a state is fresh for 1 s
  await adapter.init();
}, 60_000);

afterAll(async () => {
  await adapter?.close();
  await proxy?.close();
  await server?.close();
});

/** A payout signed for seqno `nonce`, not sent: its status check reads our jetton wallet and the service wallet. */
function unsentPayout(nonce: number): SignedPayout {
  return {
    txHash: nonce.toString(16).padStart(64, '0'),
    raw: '',
    meta: { from: '', nonce: nonce + 1000, validUntil: chain.now + 3600, queryId: String(nonce + 1), sinceLt: '0', to: '', amount: '1' },
    wallet: 'ton:test',
    sequence: nonce + 1000,
  };
}

function stateReadsOf(address: string, since: number): number {
  const target = Address.parse(address);
  return proxy.arrivals.filter((a) => a.at >= since && a.method === 'getAddressInformation' && a.address !== null && Address.parse(a.address).equals(target)).length;
}

describe('TON: one read of our jetton wallet serves every reader of a round', () => {
  it("the status checks of several pending payouts read our jetton wallet's state once, not once or twice each", async () => {
    const jw = adapter.ourJettonWallet();
    const since = proxy.elapsed();
    const statuses = await Promise.all([1, 2, 3, 4].map((n) => adapter.payoutStatus(unsentPayout(n))));
    expect(statuses.map((s) => s.state)).toEqual(['unknown', 'unknown', 'unknown', 'unknown']);
    expect(stateReadsOf(jw, since)).toBe(1);
    // One after another within the freshness window: still the same read.
    for (const n of [5, 6]) await adapter.payoutStatus(unsentPayout(n));
    expect(stateReadsOf(jw, since)).toBe(1);
  });

  it('a read older than the window is made again, and a failed read is not kept', async () => {
    const jw = adapter.ourJettonWallet();
    await new Promise((r) => setTimeout(r, 1100));
    const since = proxy.elapsed();
    await adapter.payoutStatus(unsentPayout(7));
    expect(stateReadsOf(jw, since)).toBe(1);
    // A read that failed for good is reported to its reader and not kept for the next one.
    await new Promise((r) => setTimeout(r, 1100));
    server.failNext('getAddressInformation', TON_CALL_ATTEMPTS);
    await expect(adapter.payoutStatus(unsentPayout(8))).rejects.toMatchObject({ code: 'ton_provider_unavailable' });
    await expect(adapter.payoutStatus(unsentPayout(8))).resolves.toEqual({ state: 'unknown' });
  });
});
