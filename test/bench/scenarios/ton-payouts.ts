import { performance } from 'node:perf_hooks';
import { toNano } from '@ton/core';
import type { PayoutBook, SignedPayout } from '../../../src/chains/types';
import type { ScenarioReport } from '../support/report';
import type { BenchContext } from '../support/context';
import { serviceWallet, tonAdapter } from '../../ton/support/adapter';
import { SandboxChain } from '../../ton/support/sandbox-chain';
import { startToncenter } from '../../ton/support/toncenter-server';

const QUEUE = 100;
/** Chain seconds per harness block (TON's basechain: a few seconds). */
const BLOCK_SECONDS = 5;

/**
 * 10. TON payouts per minute with a queue of 100 (issue 45 item 9): the TON adapter (batches of up
 * to 4 transfers per wallet v4 external message) on the sandbox harness with real inclusion (an
 * external runs a block after it was accepted, only at the committed seqno; one hop per block). The
 * host's part is played in memory (the book of stored payouts; the poll loop: status, then broadcast
 * on `unknown`, sign anew on `expired`), so the figure is the chain's and the family's, not the database's.
 */
export async function tonPayoutsScenario(ctx: BenchContext): Promise<ScenarioReport> {
  const chain = await SandboxChain.create(undefined, { blockMs: ctx.quick ? 300 : 500, blockSeconds: BLOCK_SECONDS });
  const server = await startToncenter(chain);
  const adapter = tonAdapter(chain, server, { payoutTtlSeconds: 120 });
  try {
    await adapter.init();
    const service = serviceWallet(adapter);
    await chain.pay({ to: service, amount: 1_000_000_000n, memo: null });
    await chain.fund(service, toNano('50'));
    const payee = (await chain.blockchain.treasury('payee')).address.toString();
    const stored = new Map<string, SignedPayout>();
    const bookFor = (id: string): PayoutBook => ({
      highestOpenSequence: async () => {
        const open = [...stored.entries()].filter(([k]) => k !== id).map(([, p]) => p.sequence ?? -1);
        return open.length === 0 ? null : Math.max(...open);
      },
      storedTxHash: async (other) => stored.get(other)?.txHash ?? null,
    });
    let refused = 0;
    // A refused broadcast is retried at the next poll (as the host does).
    const send = (id: string) => adapter.broadcastPayout(stored.get(id)!).catch(() => void (refused += 1));
    const ids = Array.from({ length: QUEUE }, (_, i) => `bench-ton-payout-${i}`);
    chain.inclusion!.pause(); // the queue forms before the chain moves
    for (const id of ids) {
      stored.set(id, await adapter.signPayout({ id, to: payee, amount: '1', book: bookFor(id) }));
      await send(id);
    }
    const t0 = performance.now();
    const chain0 = chain.now;
    const blocks0 = chain.inclusion!.counts.blocks;
    chain.inclusion!.resume();
    const open = new Set(ids);
    const attempts = new Map<string, number>();
    let resigns = 0;
    while (open.size > 0) {
      if (performance.now() - t0 > 600_000) throw new Error(`${open.size} payouts still open after 10 minutes`);
      for (const id of [...open]) {
        const status = await adapter.payoutStatus(stored.get(id)!);
        if (status.state === 'mined') open.delete(id);
        else if (status.state === 'reverted') throw new Error(`payout ${id} reverted`);
        else if (status.state === 'unknown') await send(id);
        else if (status.state === 'expired') {
          const attempt = (attempts.get(id) ?? 0) + 1;
          attempts.set(id, attempt);
          resigns += 1;
          stored.set(id, await adapter.signPayout({ id, to: payee, amount: '1', attempt, book: bookFor(id) }));
          await send(id);
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const chainSeconds = chain.now - chain0;
    const blocks = chain.inclusion!.counts.blocks - blocks0;
    const wallSeconds = (performance.now() - t0) / 1000;
    const messages = new Set([...stored.values()].map((p) => p.sequence)).size;
    ctx.log(
      `  ${QUEUE} TON payouts: ${messages} external messages, ${blocks} blocks (${chainSeconds} chain s), ${resigns} signed anew, ${refused} broadcasts refused, ${wallSeconds.toFixed(1)} s wall`,
    );
    return {
      id: 10,
      title: 'TON: payouts per minute with a queue of 100 (sandbox harness, real inclusion)',
      figures: [
        { name: `TON payouts per minute, queue of ${QUEUE} (chain time, ${BLOCK_SECONDS} s blocks)`, value: (QUEUE * 60) / Math.max(1, chainSeconds), unit: 'payouts/min', pass: null },
        { name: 'Blocks per external message', value: blocks / Math.max(1, messages), unit: 'blocks', pass: null },
        { name: `Payouts signed anew in a queue of ${QUEUE}`, value: resigns, unit: 'payouts', target: '0', pass: resigns === 0 },
      ],
      notes: [
        `Wallet v4 runs one external message per block (the node accepts only the committed seqno); each carries up to 4 transfers. The queue of ${QUEUE} is signed before the chain moves; the figure counts chain time from the first block to the last arrival at the payee's jetton wallet (each hop of a jetton transfer takes a block on the harness).`,
        `Harness: blocks every ${ctx.quick ? 300 : 500} ms of wall time, ${BLOCK_SECONDS} s of chain time each; the status loop polls every payout every 100 ms (the daemon's PAYOUT_POLL_INTERVAL_MS plays this role).`,
      ],
    };
  } finally {
    chain.inclusion?.stop();
    await adapter.close();
    await server.close();
  }
}
