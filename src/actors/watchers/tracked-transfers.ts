/** An unfinal transfer an invoice took: followed until its invoice's own required confirmations. */
export interface Tracked {
  readonly invoiceUuid: string;
  blockHeight: number;
  blockHash: string;
  confirmations: number;
  /** The invoice's own required confirmations (fixed at its creation): tracked until reached. */
  readonly required: number;
}

/** A confirmation count to send to an invoice. */
export interface ConfirmationChange {
  readonly key: string;
  readonly invoiceUuid: string;
  readonly confirmations: number;
}

/**
 * The unfinal transfers a watcher follows, in memory (rebuilt from `invoice_payments` at start).
 * Invariant: a transfer leaves only once its invoice was told it reached its required
 * confirmations, or was told it is gone (a reorg, or not seen again after a rescan).
 */
export class TrackedTransfers {
  private readonly tracked = new Map<string, Tracked>();
  /**
   * Tracked transfers above the cursor a rescan (or a restart after one) moved back to: each must be
   * seen again by the time the scan passes its block, or it is gone (the chain took another branch
   * without a reorg being reported) and is reverted, never counted on to a credit.
   */
  private readonly recheck = new Set<string>();

  get size(): number {
    return this.tracked.size;
  }

  get(key: string): Tracked | undefined {
    return this.tracked.get(key);
  }

  set(key: string, t: Tracked): void {
    this.tracked.set(key, t);
  }

  delete(key: string): void {
    this.tracked.delete(key);
    this.recheck.delete(key);
  }

  /** Seen again on the current branch: no longer suspected gone. */
  seen(key: string): void {
    this.recheck.delete(key);
  }

  /** After a rescan to `height`: every transfer above it must be seen again. */
  recheckAbove(height: number): void {
    for (const [key, t] of this.tracked) if (t.blockHeight > height) this.recheck.add(key);
  }

  markRecheck(key: string): void {
    this.recheck.add(key);
  }

  /**
   * The new counts as of a processed block, by `count` (the family's depth of a transfer's block).
   * After a rescan (`rescanning`) a count never goes down. A transfer that reached its invoice's
   * requirement leaves once the caller delivered it (`settle`).
   */
  changes(count: (t: Tracked) => number, rescanning: boolean): ConfirmationChange[] {
    const out: ConfirmationChange[] = [];
    for (const [key, t] of this.tracked) {
      const confirmations = count(t);
      if (confirmations === t.confirmations) continue;
      if (rescanning && confirmations < t.confirmations) continue; // re-seen block
      out.push({ key, invoiceUuid: t.invoiceUuid, confirmations });
    }
    return out;
  }

  /** Records a delivered count; the transfer leaves once its invoice's requirement is met. */
  settle(change: ConfirmationChange): void {
    const t = this.tracked.get(change.key);
    if (!t) return;
    t.confirmations = Math.max(t.confirmations, change.confirmations);
    // Each invoice's own requirement, not the network's current setting (it may have changed since).
    if (t.confirmations >= t.required) this.delete(change.key);
  }

  /** Transfers in blocks above `height` (a reorg replaced them): removed and returned. */
  takeAbove(height: number): Array<{ key: string; t: Tracked }> {
    const gone = [...this.tracked].filter(([, t]) => t.blockHeight > height).map(([key, t]) => ({ key, t }));
    for (const { key } of gone) this.delete(key);
    return gone;
  }

  /** Suspected transfers of blocks below `height` not seen again: gone (returned, not yet removed). */
  unseenBelow(height: number): Array<{ key: string; t: Tracked }> {
    return [...this.recheck].flatMap((key) => {
      const t = this.tracked.get(key);
      if (!t) this.recheck.delete(key);
      return t && t.blockHeight < height ? [{ key, t }] : [];
    });
  }

  list(): Array<{ key: string; invoiceUuid: string; blockHeight: number; confirmations: number; required: number }> {
    return [...this.tracked].map(([key, t]) => ({ key, ...t }));
  }
}
