import type { SolanaRpc } from './rpc';

/** A sent payout is sent again this often until it lands or its blockhash expires (~5 slots on mainnet). */
export const RESEND_INTERVAL_MS = 2000;

/** getSignatureStatuses takes at most 256 signatures a call. */
const BATCH = 256;

interface Tracked {
  readonly wire: Buffer;
  readonly lastValidBlockHeight: number;
}

/**
 * Sends every sent payout again every `intervalMs` until a node has it or its blockhash expired.
 * A leader under load drops what it cannot schedule, and an RPC node forwards a transaction to the
 * next leaders only for a short while (we send with maxRetries 0 to keep that in our hands): a
 * signed transaction sent once lands only if that one send made it. Sending the same signed
 * transaction again is harmless (one signature executes at most once). Per tick, for all tracked
 * payouts together: one getSignatureStatuses (recent statuses: a found one is done here, and
 * status() follows it), one getBlockHeight(confirmed) (past lastValidBlockHeight it is dropped:
 * status() proves the expiry), and one sendTransaction per payout still missing. In memory only:
 * after a restart the host's status check finds it `unknown` and broadcasts it, which tracks it again.
 */
export class SolanaResender {
  private readonly tracked = new Map<string, Tracked>();
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;
  /** Sends made by the ticks (not the first send), for tests and the bench. */
  resent = 0;

  constructor(
    private readonly rpc: SolanaRpc,
    private readonly intervalMs: number,
  ) {}

  track(signature: string, wire: Buffer, lastValidBlockHeight: number): void {
    this.tracked.set(signature, { wire, lastValidBlockHeight });
    if (!this.timer) {
      this.timer = setInterval(() => void this.tick(), this.intervalMs);
      this.timer.unref();
    }
  }

  forget(signature: string): void {
    this.tracked.delete(signature);
    if (this.tracked.size === 0) this.stopTimer();
  }

  close(): void {
    this.tracked.clear();
    this.stopTimer();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const signatures = [...this.tracked.keys()].slice(0, BATCH);
      const [height, statuses] = await Promise.all([
        this.rpc.call('getBlockHeight', (c) => c.getBlockHeight('confirmed')),
        this.rpc.call('getSignatureStatuses', (c) => c.getSignatureStatuses(signatures)),
      ]);
      await Promise.all(
        signatures.map(async (signature, i) => {
          const entry = this.tracked.get(signature);
          if (!entry) return;
          if (statuses.value[i] != null || height > entry.lastValidBlockHeight) return this.forget(signature);
          this.resent += 1;
          await this.rpc.call('sendTransaction', (c) => c.sendRawTransaction(entry.wire, { skipPreflight: true, maxRetries: 0 })).catch(() => undefined);
        }),
      );
    } catch {
      // A node that does not answer: the next tick asks again (the host's status check goes on regardless).
    } finally {
      this.ticking = false;
    }
  }
}
