import { Address } from '@ton/core';
import type { TonAdapter } from '../../src/chains/ton';
import { TON_CALL_ATTEMPTS } from '../../src/chains/ton/client';
import { caughtUp, serviceWallet, tonAdapter, watchFrom } from './support/adapter';
import { SandboxChain } from './support/sandbox-chain';
import { startToncenter, type ToncenterServer } from './support/toncenter-server';

let chain: SandboxChain;
let server: ToncenterServer;
let adapter: TonAdapter;
let service: Address;

beforeAll(async () => {
  chain = await SandboxChain.create();
  server = await startToncenter(chain);
  adapter = tonAdapter(chain, server);
  await adapter.init();
  service = serviceWallet(adapter);
}, 60_000);

afterAll(async () => {
  await adapter?.close();
  await server?.close();
});

const USDT = 1_000_000n;

describe('TON deposits read from our jetton wallet', () => {
  it('anchors on get_wallet_address(service wallet) of the configured master', async () => {
    expect(Address.parse(adapter.ourJettonWallet()).equals(await chain.jettonWallet(service))).toBe(true);
    expect(adapter.paymentLink({ address: adapter.sharedDepositAddress(), amount: '1.5', memo: 'INV-1' })).toBe(
      `ton://transfer/${adapter.sharedDepositAddress()}?jetton=${adapter.tokenContract}&amount=1500000&text=INV-1`,
    );
  });

  it('refuses to start when the master does not answer, naming TON_JETTON_MASTER', async () => {
    const stranger = tonAdapter(chain, server, { jettonMaster: chain.payer.address.toString() });
    await expect(stranger.init()).rejects.toMatchObject({ code: 'jetton_master_unanswered', variable: 'TON_JETTON_MASTER' });
    // A 5xx is retried (TON_CALL_ATTEMPTS in all); one that persists refuses the start.
    server.failNext('runGetMethod', TON_CALL_ATTEMPTS);
    await expect(tonAdapter(chain, server).init()).rejects.toMatchObject({ code: 'jetton_master_unanswered', cause: expect.objectContaining({ code: 'ton_provider_unavailable' }) });
    server.failNext('runGetMethod', TON_CALL_ATTEMPTS - 1);
    await expect(tonAdapter(chain, server).init()).resolves.toBeUndefined();
  });

  it('credits internal_transfers with their memo (inline, in a ref, forward_ton_amount 0); encrypted or missing memos are null', async () => {
    const { watch, seen } = watchFrom(adapter, null);
    const start = await caughtUp(seen, chain);
    await chain.pay({ to: service, amount: 5n * USDT, memo: 'MEMO-A' });
    await chain.pay({ to: service, amount: 2n * USDT, memo: 'MEMO-B', payloadInRef: true });
    await chain.pay({ to: service, amount: 3n * USDT, memo: 'MEMO-C', forwardTon: 0n });
    await chain.pay({ to: service, amount: 4n * USDT, memo: 'secret', encrypted: true });
    await chain.pay({ to: service, amount: 1n * USDT, memo: null });
    await chain.pay({ to: service, amount: 1n * USDT, memo: 'L'.repeat(300), payloadInRef: true });
    await caughtUp(seen, chain);
    await watch.stop();
    const transfers = seen.of('transfer');
    expect(transfers.map((t) => [t.amount, t.memo])).toEqual([
      ['5', 'MEMO-A'],
      ['2', 'MEMO-B'],
      ['3', 'MEMO-C'],
      ['4', null],
      ['1', null],
      ['1', 'L'.repeat(128)],
    ]);
    for (const t of transfers) {
      expect(t.to).toBe(service.toRawString());
      expect(t.from).toBe(chain.payer.address.toRawString());
      expect(t.txHash).toMatch(/^[0-9a-f]{64}$/);
      expect(t.blockHeight).toBeGreaterThan(Number(start.seqno));
      expect([t.confirmations, t.final]).toEqual([1, true]);
    }
    // Every poll's transfers come before the block that commits them, and each block is final.
    expect(seen.all.at(-1)?.kind).toBe('finalize');
  });

  it('ignores a look-alike jetton, a forged notification, a forged internal_transfer (aborted) and a bounce', async () => {
    const { watch, seen } = watchFrom(adapter, null);
    await caughtUp(seen, chain);
    const jw = Address.parse(adapter.ourJettonWallet());
    const before = await chain.jettonBalance(service);
    await chain.pay({ to: service, amount: 7n * USDT, memo: 'MEMO-A', fake: true });
    await chain.forgeNotification(service, 7n * USDT, 'MEMO-A');
    const forged = await chain.forgeInternalTransfer(jw, 7n * USDT, 'MEMO-A');
    expect(forged.some((tx) => tx.description.type === 'generic' && tx.description.aborted)).toBe(true);
    await chain.bouncedInternalTransfer(jw, 7n * USDT, 'MEMO-A');
    // The bounce did change the balance (the standard wallet restores it): still no deposit.
    expect(await chain.jettonBalance(service)).toBe(before + 7n * USDT);
    await chain.pay({ to: service, amount: 1n * USDT, memo: 'AFTER' });
    await caughtUp(seen, chain);
    await watch.stop();
    expect(seen.of('transfer').map((t) => t.memo)).toEqual(['AFTER']);
  });

  it('after downtime across several pages credits every transfer once, in order', async () => {
    const paged = tonAdapter(chain, server, { pageSize: 3 });
    await paged.init();
    const first = watchFrom(paged, null);
    const cursor = await caughtUp(first.seen, chain);
    await first.watch.stop();
    for (let i = 1; i <= 8; i++) await chain.pay({ to: service, amount: BigInt(i) * USDT, memo: `DOWN-${i}` });
    const calls = server.calls.get('getTransactions') ?? 0;
    const again = watchFrom(paged, cursor);
    await caughtUp(again.seen, chain);
    await again.watch.stop();
    expect(again.seen.of('transfer').map((t) => t.memo)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((i) => `DOWN-${i}`));
    // 8 transactions at 3 a page (the cursor's own transaction ends the last page).
    expect((server.calls.get('getTransactions') ?? 0) - calls).toBe(3);
    await paged.close();
  });

  it('a service wallet without TON for gas is refused at signing (retried, not failed)', async () => {
    await expect(adapter.signPayout({ id: 'no-gas', to: chain.payer.address.toString(), amount: '1' })).rejects.toMatchObject({ code: 'payout_gas_short' });
  });

  it('an idle poll costs one state call', async () => {
    const { watch, seen } = watchFrom(adapter, null);
    await caughtUp(seen, chain);
    const before = new Map(server.calls);
    await new Promise((r) => setTimeout(r, 600));
    await watch.stop();
    const polls = (server.calls.get('getAddressInformation') ?? 0) - (before.get('getAddressInformation') ?? 0);
    expect(polls).toBeGreaterThan(3);
    expect(server.calls.get('getTransactions') ?? 0).toBe(before.get('getTransactions') ?? 0);
    expect(seen.of('transfer')).toEqual([]);
  });
});
