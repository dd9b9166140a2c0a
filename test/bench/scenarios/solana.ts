import { createHmac, randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import { PublicKey } from '@solana/web3.js';
import { InvoiceServiceClient, type InvoiceUpdate } from '../../../src/grpc/generated/chainpay/v1/invoices';
import { toBaseUnits } from '../../../src/chains/amount';
import { PlainWatchedSet } from '../../../src/chains/watched-set';
import { testAdapter } from '../../solana/support/adapter';
import { Payer } from '../../solana/support/payer';
import { SolanaRpcServer } from '../../solana/support/rpc-server';
import { SvmChain } from '../../solana/support/svm-chain';
import { startServer, type BenchContext } from '../support/context';
import type { ScenarioReport } from '../support/report';
import { median, summarize } from '../support/stats';

/** Slot time of the harness in this scenario (mainnet: ~400 ms; faster here to get samples). */
const SLOT_MS = 40;
const POLL_MS = 20;

/**
 * 8. SOLANA on the litesvm harness (the real SPL Token program behind a JSON-RPC server in agave's
 * shapes): (a) RPC calls per produced slot while following the finalized tip with 1, 1,000 and
 * 100,000 watched owners; (b) detection latency, from the moment the block holding a payment is
 * finalized to the invoice's `confirming` on its WatchInvoice stream, on a live daemon process.
 */
export async function solanaScenario(ctx: BenchContext): Promise<ScenarioReport> {
  const chain = new SvmChain();
  const rpc = new SolanaRpcServer(chain);
  await rpc.listen();
  chain.autoProduce(SLOT_MS);
  try {
    const cost = await rpcCallsPerSlot(ctx, chain, rpc);
    const latency = await detection(ctx, chain, rpc);
    const pooled = summarize(latency.all);
    return {
      id: 8,
      title: 'SOLANA: RPC calls per slot and detection latency (litesvm harness)',
      figures: [
        ...cost.map((c) => ({
          name: `RPC calls per produced slot, ${c.watched.toLocaleString('en-US')} watched owners (getBlock per slot: ${c.getBlockPerSlot.toFixed(2)})`,
          value: c.perSlot,
          unit: 'calls/slot',
          pass: null,
        })),
        { name: 'Slot finalized -> invoice `confirming`, p50', value: median(latency.p50), unit: 'ms', runs: latency.p50, pass: null },
        { name: 'Slot finalized -> invoice `confirming`, p99', value: median(latency.p99), unit: 'ms', runs: latency.p99, pass: null },
      ],
      notes: [
        `The harness produces a block every ${SLOT_MS} ms (every 5th slot skipped) with \`finalized\` two blocks behind; the adapter polls \`getSlot(finalized)\` every ${POLL_MS} ms (SOLANA_POLL_INTERVAL_MS; default 1,000 ms, for which expect up to that much more latency and fewer getSlot/getBlocks calls per slot).`,
        `Calls per slot: getSlot + getBlocks + getBlock counted at the RPC server while an adapter catches up over the same ${SCANNED} produced slots (SOLANA_MAX_SLOT_RANGE=${RANGE}) with each watched set: one getBlock per produced slot and one getSlot + getBlocks per range, whatever the set. Following the tip adds one getSlot per poll and one getBlocks per poll that finds a new slot. On mainnet (~2.5 slots/s) that is ~6.5 million getBlock calls a month.`,
        `Detection: a live daemon process (SOLANA_RPC_URL = the harness); per payment an invoice is created through the gateway, its WatchInvoice stream opened, the payment sent (web3.js, new ATA); t0 = the harness marking its block finalized, t1 = the stream's \`confirming\`. Pooled: p50 ${pooled.p50.toFixed(1)} ms, p99 ${pooled.p99.toFixed(1)} ms, max ${pooled.max.toFixed(1)} ms.`,
      ],
    };
  } finally {
    chain.stopAuto();
    await rpc.close();
  }
}

/** Produced slots scanned per measurement, and slots per getBlocks call (SOLANA_MAX_SLOT_RANGE). */
const SCANNED = 300;
const RANGE = 100;

/**
 * Catch-up over the same SCANNED produced slots with each watched set (the chain paused): what the
 * RPC is asked depends only on the slots, so the counts are exact, not timing-dependent.
 */
async function rpcCallsPerSlot(ctx: BenchContext, chain: SvmChain, rpc: SolanaRpcServer): Promise<{ watched: number; perSlot: number; getBlockPerSlot: number }[]> {
  chain.stopAuto();
  const from = chain.at('finalized');
  while (chain.produced.filter((s) => s > from.slot && s <= chain.at('finalized').slot).length < SCANNED) chain.produce();
  const target = chain.at('finalized').slot;
  const slots = chain.produced.filter((s) => s > from.slot && s <= target).length;
  const out: { watched: number; perSlot: number; getBlockPerSlot: number }[] = [];
  for (const watched of [1, 1000, 100_000]) {
    // Owner keys as the set holds them (base58 of 32 bytes); random, since deriving 100,000 ed25519 keys would only cost time.
    const set = new PlainWatchedSet();
    set.addAll(Array.from({ length: watched }, () => base58.encode(randomBytes(32))));
    const adapter = await testAdapter(rpc.url, { SOLANA_POLL_INTERVAL_MS: POLL_MS, SOLANA_MAX_SLOT_RANGE: RANGE });
    rpc.resetCounts();
    let tip = -1;
    const watch = adapter.watch({ from: { slot: from.slot, blockhash: from.blockhash }, watched: set, sink: async (o) => void (o.kind === 'block' && (tip = o.height)) });
    while (tip < target) await new Promise((r) => setTimeout(r, 10));
    await watch.stop();
    await adapter.close();
    const calls = rpc.count('getSlot') + rpc.count('getBlocks') + rpc.count('getBlock');
    out.push({ watched, perSlot: calls / slots, getBlockPerSlot: rpc.count('getBlock') / slots });
    ctx.log(`  ${watched} watched: getSlot ${rpc.count('getSlot')}, getBlocks ${rpc.count('getBlocks')}, getBlock ${rpc.count('getBlock')} over ${slots} produced slots`);
  }
  chain.autoProduce(SLOT_MS);
  return out;
}

async function detection(ctx: BenchContext, chain: SvmChain, rpc: SolanaRpcServer): Promise<{ p50: number[]; p99: number[]; all: number[] }> {
  const server = await startServer(ctx, 'solana', { SOLANA_RPC_URL: rpc.url, SOLANA_POLL_INTERVAL_MS: String(POLL_MS) }, { layout: ctx.layout });
  const client = new InvoiceServiceClient(`127.0.0.1:${server.started.grpcPort}`, grpc.credentials.createInsecure());
  const payer = new Payer(chain, rpc.url);
  try {
    const merchant = await server.merchant();
    const buyer = await payer.wallet(10n ** 12n);
    const perRun = ctx.quick ? 10 : 30;
    const res = { p50: [] as number[], p99: [] as number[], all: [] as number[] };
    for (let run = 1; run <= ctx.runs; run++) {
      const samples: number[] = [];
      for (let i = 0; i < perRun; i++) {
        const body = JSON.stringify({ amount: '10', network: 'SOLANA' });
        const created = await fetch(`http://127.0.0.1:${server.started.httpPort}/v1/invoices`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Service-Key': merchant.apiKey, 'X-Service-Signature': createHmac('sha256', merchant.apiSecret).update(body).digest('hex') },
          body,
        });
        if (created.status !== 201) throw new Error(`create invoice: ${created.status} ${await created.text()}`);
        const inv = (await created.json()) as { uuid: string; address: string; pay_amount: string };
        const md = new grpc.Metadata();
        md.set('authorization', `Bearer ${server.started.operatorToken}`);
        md.set('x-merchant-id', merchant.merchantId);
        const stream = client.watchInvoice({ uuid: inv.uuid }, md);
        const confirmingAt = new Promise<number>((resolve, reject) => {
          stream.on('data', (u: InvoiceUpdate) => u.invoice?.status === 'confirming' && resolve(performance.now()));
          stream.on('error', (err: grpc.ServiceError) => err.code !== grpc.status.CANCELLED && reject(err));
        });
        await new Promise<void>((resolve) => stream.once('data', () => resolve()));
        const signature = await payer.pay(buyer, new PublicKey(inv.address).toBase58(), toBaseUnits(inv.pay_amount, 6));
        const t1 = await Promise.race([confirmingAt, new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`invoice ${inv.uuid} not confirming after 15 s`)), 15_000))]);
        stream.cancel();
        const slot = chain.statuses.get(signature)?.slot;
        const t0 = slot === undefined ? undefined : chain.finalizedAt.get(slot);
        if (t0 === undefined) throw new Error(`no finalization time for ${signature}`);
        samples.push(t1 - t0);
      }
      const s = summarize(samples);
      res.p50.push(s.p50);
      res.p99.push(s.p99);
      res.all.push(...samples);
      ctx.log(`  solana detection run ${run}: p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms`);
    }
    return res;
  } finally {
    client.close();
    await server.stop();
  }
}
