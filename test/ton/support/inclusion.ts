import type { Blockchain, BlockchainTransaction } from '@ton/sandbox';
import { type Cell, loadMessage } from '@ton/core';

/** What inclusion needs of the harness chain (SandboxChain). */
export interface InclusionChain {
  readonly blockchain: Blockchain;
  readonly now: number;
  /** Masterchain seqno the harness reports; one per block. */
  seqno: number;
}

export interface InclusionOptions {
  /** Wall-clock milliseconds between blocks. */
  readonly blockMs: number;
  /** Chain seconds each block adds to the chain time (0: the test moves time itself). */
  readonly blockSeconds: number;
}

/** The messages an external caused, still running: `pending` of them run in the next block. */
interface Flight {
  readonly it: AsyncIterator<BlockchainTransaction>;
  pending: number;
}

function internalsOf(tx: BlockchainTransaction): number {
  return [...tx.outMessages.values()].filter((m) => m.info.type === 'internal').length;
}

/** A liteserver's refusal of an external message (the harness answers sendBoc with it). */
export class ExternalRefused extends Error {}

/**
 * Real TON inclusion on the sandbox (CHAINS.md, "Real providers"): a liteserver accepts an external
 * message only if the wallet would accept it in the COMMITTED state (wallet v4: its seqno is the
 * committed seqno, valid_until not passed), then the message runs in the next block, and each message
 * it causes runs one block later (one hop per block: a jetton transfer's bounce arrives blocks after
 * our wallet's successful `transfer`). So a payout queue cannot pipeline seqnos: one external per
 * wallet per block.
 */
export class Inclusion {
  private held: Cell[] = [];
  private flights: Flight[] = [];
  private readonly timer: NodeJS.Timeout;
  private producing: Promise<void> = Promise.resolve();
  private paused = false;
  /** Externals accepted and externals refused by sendBoc, for the tests. */
  readonly counts = { accepted: 0, refused: 0, dropped: 0, blocks: 0 };

  constructor(
    private readonly chain: InclusionChain,
    private readonly o: InclusionOptions,
  ) {
    // A tick while the previous block is still being produced is skipped (no backlog of blocks).
    let busy = false;
    this.timer = setInterval(() => {
      if (this.paused || busy) return;
      busy = true;
      this.producing = this.block()
        .catch(() => undefined)
        .finally(() => (busy = false));
    }, o.blockMs);
    this.timer.unref();
  }

  /** sendBoc: refuse what the committed state refuses, hold the rest for the next block. */
  async accept(cell: Cell): Promise<void> {
    const message = loadMessage(cell.beginParse());
    if (message.info.type !== 'external-in') throw new ExternalRefused('not an external message');
    const contract = await this.chain.blockchain.getContract(message.info.dest);
    const deployed = contract.accountState?.type === 'active';
    if (!deployed && !message.init) throw this.refuse('account not deployed and no state init');
    const committed = deployed ? Number((await this.chain.blockchain.runGetMethod(message.info.dest, 'seqno')).stackReader.readNumber()) : 0;
    const body = message.body.beginParse();
    body.skip(512 + 32);
    const validUntil = body.loadUint(32);
    const seqno = body.loadUint(32);
    if (seqno !== committed) throw this.refuse(`seqno ${seqno} is not the committed seqno ${committed}`);
    if (validUntil <= this.chain.now) throw this.refuse(`valid_until ${validUntil} passed (now ${this.chain.now})`);
    this.counts.accepted += 1;
    this.held.push(cell);
  }

  /** Resolves once nothing is held and every message in flight has run. */
  async settled(timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.held.length > 0 || this.flights.length > 0) {
      if (Date.now() > deadline) throw new Error('the harness did not settle');
      await new Promise((r) => setTimeout(r, this.o.blockMs));
    }
    await this.producing;
  }

  /** No blocks until resume(): sendBoc still accepts (or refuses) and holds, nothing runs. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private refuse(why: string): ExternalRefused {
    this.counts.refused += 1;
    return new ExternalRefused(`LITE_SERVER_UNKNOWN: cannot apply external message to current state: ${why}`);
  }

  /** One block: chain time moves, in-flight messages take one hop, held externals run. */
  private async block(): Promise<void> {
    if (this.o.blockSeconds > 0) this.chain.blockchain.now = this.chain.now + this.o.blockSeconds;
    this.chain.seqno += 1;
    this.counts.blocks += 1;
    const flights = this.flights;
    this.flights = [];
    for (const flight of flights) {
      // One hop: every message queued in the previous block runs now; what they send runs next block.
      let steps = flight.pending;
      flight.pending = 0;
      try {
        for (; steps > 0; steps--) {
          const step = await flight.it.next();
          if (step.done) break;
          flight.pending += internalsOf(step.value);
        }
      } catch {
        // a message the sandbox cannot run further: the flight ends
      }
      if (flight.pending > 0) this.flights.push(flight);
    }
    const held = this.held;
    this.held = [];
    for (const cell of held) {
      const it = await this.chain.blockchain.sendMessageIter(cell, { allowParallel: true });
      try {
        // The wallet's own transaction; a second external at the same seqno is refused here (dropped).
        const step = await it.next();
        if (!step.done && internalsOf(step.value) > 0) this.flights.push({ it, pending: internalsOf(step.value) });
      } catch {
        this.counts.dropped += 1;
      }
    }
  }
}
