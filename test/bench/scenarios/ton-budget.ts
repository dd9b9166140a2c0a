import { Address } from '@ton/core';
import { toBaseUnits } from '../../../src/chains/amount';
import { startServer, type BenchContext, type Server } from '../support/context';
import type { Figure } from '../support/report';
import { startRateLimitProxy } from '../../ton/support/rate-limit-proxy';
import { SandboxChain } from '../../ton/support/sandbox-chain';
import { startToncenter } from '../../ton/support/toncenter-server';

/** A deposit every this many ms in the "with deposits" window (one per ~2.5 masterchain blocks). */
const DEPOSIT_EVERY_MS = 4000;

/**
 * TON on toncenter's budget without an API key: the daemon with its defaults (TON_POLL_INTERVAL_MS
 * 2,000, TON_RPS 1) behind a proxy that answers 429 above 1 call/s as toncenter does. Calls per
 * minute the provider sees at idle and while deposits arrive, and the calls it refused.
 */
export type CreateInvoice = (server: Server, merchant: { merchantId: string; apiKey: string; apiSecret: string }, amount: string) => Promise<{ address: string; memo: string; pay_amount: string }>;

export async function tonBudgetFigures(ctx: BenchContext, createInvoice: CreateInvoice): Promise<{ figures: Figure[]; notes: string[] }> {
  const chain = await SandboxChain.create();
  const toncenter = await startToncenter(chain);
  const proxy = await startRateLimitProxy(toncenter.url, 1);
  const server = await startServer(ctx, 'ton-budget', { TON_RPC_URL: proxy.url, TON_JETTON_MASTER: chain.usdt.address.toString(), TON_CONFIRMATIONS: '1' }, { layout: ctx.layout });
  try {
    const merchant = await server.merchant();
    const windowMs = ctx.quick ? 20_000 : 60_000;
    const count = (from: number, to: number) => proxy.arrivals.filter((a) => a.at >= from && a.at < to).length;
    // Let the start-up calls (init, first poll) pass before the idle window.
    await new Promise((r) => setTimeout(r, 5000));
    const base = proxy.elapsed();
    await new Promise((r) => setTimeout(r, windowMs));
    const idle = (count(base, base + windowMs) * 60_000) / windowMs;
    const refusedIdle = proxy.refused();

    const invoices = [];
    for (let i = 0; i < Math.ceil(windowMs / DEPOSIT_EVERY_MS); i++) invoices.push(await createInvoice(server, merchant, '1'));
    const busyFrom = proxy.elapsed();
    for (const inv of invoices) {
      await chain.pay({ to: Address.parse(inv.address), amount: toBaseUnits(inv.pay_amount, 6), memo: inv.memo.toLowerCase() });
      await new Promise((r) => setTimeout(r, DEPOSIT_EVERY_MS));
    }
    const busyTo = proxy.elapsed();
    const busy = (count(busyFrom, busyTo) * 60_000) / (busyTo - busyFrom);
    ctx.log(
      `  TON on 1 call/s (no API key): ${idle.toFixed(1)} calls/min idle, ${busy.toFixed(1)} calls/min with a deposit every ${DEPOSIT_EVERY_MS / 1000} s, ${proxy.refused()} refused (429), peak ${proxy.peak()} calls in a second`,
    );
    return {
      figures: [
        { name: 'toncenter calls per minute at idle (defaults, TON_RPS 1)', value: idle, unit: 'calls/min', target: '≤ 60 (1 call/s without a key)', pass: idle <= 60 },
        { name: `toncenter calls per minute with a deposit every ${DEPOSIT_EVERY_MS / 1000} s (defaults, TON_RPS 1)`, value: busy, unit: 'calls/min', target: '≤ 60', pass: busy <= 60 },
        { name: 'toncenter calls refused (429) at 1 call/s', value: proxy.refused(), unit: 'calls', target: '0', pass: proxy.refused() === 0 && refusedIdle === 0 },
      ],
      notes: [
        `TON budget: the daemon with its defaults (TON_POLL_INTERVAL_MS 2,000, TON_RPS 1 as without TON_API_KEY) behind a proxy that answers 429 above 1 call in any second (toncenter without a key). Idle window ${windowMs / 1000} s after 5 s of start-up; then a deposit every ${DEPOSIT_EVERY_MS / 1000} s (memo typed in lower case) for as long; every call the proxy saw, per minute.`,
      ],
    };
  } finally {
    await server.stop();
    await proxy.close();
    await toncenter.close();
  }
}
