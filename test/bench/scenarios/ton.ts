import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import { Address } from '@ton/core';
import { InvoiceServiceClient, type InvoiceUpdate } from '../../../src/grpc/generated/chainpay/v1/invoices';
import { toBaseUnits } from '../../../src/chains/amount';
import { startServer, type BenchContext, type Server } from '../support/context';
import type { ScenarioReport } from '../support/report';
import { median, summarize } from '../support/stats';
import { SandboxChain } from '../../ton/support/sandbox-chain';
import { startToncenter, type ToncenterServer } from '../../ton/support/toncenter-server';
import { tonBudgetFigures } from './ton-budget';

const POLL_MS = 50;
const LEVELS = [1, 1_000, 100_000];

type Merchant = { merchantId: string; apiKey: string; apiSecret: string };
interface Invoice {
  uuid: string;
  address: string;
  memo: string;
  pay_amount: string;
}

/**
 * 7. TON on the harness (standard jetton contracts on @ton/sandbox behind a toncenter v2 server):
 * toncenter calls per poll with 1, 1,000 and 100,000 open TON invoices (counted by the server), and
 * detection latency, transaction -> invoice `confirming`, through a live daemon.
 */
export async function tonScenario(ctx: BenchContext): Promise<ScenarioReport> {
  const chain = await SandboxChain.create();
  const rpc = await startToncenter(chain);
  const server = await startServer(
    ctx,
    'ton',
    { TON_RPC_URL: rpc.url, TON_JETTON_MASTER: chain.usdt.address.toString(), TON_POLL_INTERVAL_MS: String(POLL_MS), TON_CONFIRMATIONS: '1', TON_RPS: '1000' },
    { layout: ctx.layout },
  );
  try {
    const merchant = await server.merchant();
    const levels = ctx.quick ? [1, 100, 1_000] : LEVELS;
    const perLevel: Array<{ open: number; idle: number; busy: number; pages: number }> = [];
    let open: Invoice[] = [];
    for (const level of levels) {
      open = open.concat(await createInvoices(server, merchant, level - open.length));
      perLevel.push(await callsPerPoll(ctx, chain, rpc, open));
      const last = perLevel.at(-1)!;
      ctx.log(`  ${level} open TON invoices: ${last.idle.toFixed(2)} calls per idle poll, ${last.busy.toFixed(2)} per poll with payments, ${last.pages.toFixed(2)} getTransactions per changed poll`);
    }
    const client = new InvoiceServiceClient(`127.0.0.1:${server.started.grpcPort}`, grpc.credentials.createInsecure());
    const p50: number[] = [];
    const p99: number[] = [];
    try {
      for (let run = 1; run <= ctx.runs; run++) {
        const samples: number[] = [];
        for (let i = 0; i < (ctx.quick ? 10 : 40); i++) {
          samples.push(await detectOne(server, merchant, client, chain));
          await new Promise((r) => setTimeout(r, Math.random() * POLL_MS * 2));
        }
        const s = summarize(samples);
        p50.push(s.p50);
        p99.push(s.p99);
        ctx.log(`  TON detection run ${run}: p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms`);
      }
    } finally {
      client.close();
    }
    const flat = perLevel.every((l) => Math.abs(l.idle - perLevel[0]!.idle) < 0.05);
    const budget = await tonBudgetFigures(ctx, createInvoice);
    return {
      id: 7,
      title: 'TON: toncenter calls per poll and detection latency (sandbox harness)',
      figures: [
        ...perLevel.map((l) => ({
          name: `toncenter calls per idle poll, ${l.open.toLocaleString('en-US')} open TON invoices`,
          value: l.idle,
          unit: 'calls',
          target: '1, flat in invoices',
          pass: flat && l.idle <= 1.05,
        })),
        ...perLevel.map((l) => ({ name: `toncenter calls per poll while paying, ${l.open.toLocaleString('en-US')} open TON invoices`, value: l.busy, unit: 'calls', pass: null })),
        // No target set for TON (the issue asks for the figure); the harness's own work is inside it.
        { name: 'Transaction -> invoice `confirming`, p50', value: median(p50), unit: 'ms', runs: p50, pass: null },
        { name: 'Transaction -> invoice `confirming`, p99', value: median(p99), unit: 'ms', runs: p99, pass: null },
        ...budget.figures,
      ],
      notes: [
        `TON runs live on @ton/sandbox 0.41 with the standard jetton minter and wallet (@ton-community/assets-sdk 0.0.5), behind an HTTP server speaking toncenter v2 JSON-RPC in the bench process; the daemon's TonClient polls our jetton wallet every ${POLL_MS} ms (TON_POLL_INTERVAL_MS; default 2,000).`,
        'Calls per poll: polls = getAddressInformation calls (one per poll, by construction); every toncenter call the server saw in a window of idle polls, then in a window with payments to open invoices, divided by the polls. Memos are matched by the watcher in PostgreSQL (one indexed lookup per transfer), never through the API.',
        "The sandbox and the toncenter server run in the bench process: every toncenter call filters and serializes the sandbox's whole transaction list, so the figures include harness time that a real toncenter does not add (and miss the ~5 s masterchain block interval of the real chain). `--quick` measures 1 / 100 / 1,000 open invoices.",
        'Detection: t0 = the sandbox has executed the jetton transfer (the harness counts it as a masterchain block); t1 = the WatchInvoice stream shows `confirming` (TON_CONFIRMATIONS=1: `confirming` and `paid` commit together, the stream shows the first).',
        ...budget.notes,
      ],
    };
  } finally {
    await server.stop();
    await rpc.close();
  }
}

async function createInvoices(server: Server, m: Merchant, count: number): Promise<Invoice[]> {
  const out: Invoice[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      out.push(await createInvoice(server, m, '10'));
    }
  };
  await Promise.all(Array.from({ length: Math.min(16, Math.max(count, 0)) }, worker));
  return out;
}

async function createInvoice(server: Server, m: Merchant, amount: string): Promise<Invoice> {
  const body = JSON.stringify({ amount, network: 'TON' });
  const res = await fetch(`http://127.0.0.1:${server.started.httpPort}/v1/invoices`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Service-Key': m.apiKey, 'X-Service-Signature': createHmac('sha256', m.apiSecret).update(body).digest('hex') },
    body,
  });
  if (res.status !== 201) throw new Error(`create invoice: ${res.status} ${await res.text()}`);
  return (await res.json()) as Invoice;
}

function total(calls: Map<string, number>): number {
  return [...calls.values()].reduce((a, b) => a + b, 0);
}

async function callsPerPoll(ctx: BenchContext, chain: SandboxChain, rpc: ToncenterServer, open: Invoice[]): Promise<{ open: number; idle: number; busy: number; pages: number }> {
  const window = async (payments: number): Promise<{ perPoll: number; pages: number }> => {
    const before = new Map(rpc.calls);
    for (let i = 0; i < payments; i++) {
      const inv = open[Math.floor(Math.random() * open.length)]!;
      await chain.pay({ to: Address.parse(inv.address), amount: 1_000n, memo: inv.memo });
      await new Promise((r) => setTimeout(r, POLL_MS * 3));
    }
    if (payments === 0) await new Promise((r) => setTimeout(r, ctx.ms(3000)));
    const polls = (rpc.calls.get('getAddressInformation') ?? 0) - (before.get('getAddressInformation') ?? 0);
    const pages = (rpc.calls.get('getTransactions') ?? 0) - (before.get('getTransactions') ?? 0);
    return { perPoll: (total(rpc.calls) - total(before)) / Math.max(1, polls), pages: pages / Math.max(1, payments) };
  };
  const idle = await window(0);
  const busy = await window(ctx.quick ? 5 : 20);
  return { open: open.length, idle: idle.perPoll, busy: busy.perPoll, pages: busy.pages };
}

async function detectOne(server: Server, m: Merchant, client: InvoiceServiceClient, chain: SandboxChain): Promise<number> {
  const inv = await createInvoice(server, m, '10');
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${server.started.operatorToken}`);
  md.set('x-merchant-id', m.merchantId);
  const stream = client.watchInvoice({ uuid: inv.uuid }, md);
  const seen = new Promise<number>((resolve, reject) => {
    stream.on('data', (u: InvoiceUpdate) => {
      if (u.invoice?.status === 'confirming' || u.invoice?.status === 'paid') resolve(performance.now());
    });
    stream.on('error', (err: grpc.ServiceError) => {
      if (err.code !== grpc.status.CANCELLED) reject(err);
    });
  });
  await new Promise<void>((resolve) => stream.once('data', () => resolve()));
  await chain.pay({ to: Address.parse(inv.address), amount: toBaseUnits(inv.pay_amount, 6), memo: inv.memo });
  const t0 = performance.now();
  const timeout = new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`invoice ${inv.uuid} not confirming after 15 s`)), 15_000));
  try {
    return (await Promise.race([seen, timeout])) - t0;
  } finally {
    stream.cancel();
  }
}
