/**
 * How a refused block range grows back (the follower's catch-up range size).
 * - `growAfter`: full-size ranges in a row that must succeed before the size grows.
 * - `forgetAfter`: full-size successes after the last refusal after which the smallest refused size
 *   is forgotten, so a limit that was lifted (or a refusal for too many results, which depends on
 *   the stretch of chain) does not cap the range for good.
 * - `timeoutsAsRefusal`: a multi-block range that times out this many times in a row is treated
 *   as refused (a provider that never finishes a range refuses it in effect).
 */
export interface RangeGrowth {
  readonly growAfter: number;
  readonly forgetAfter: number;
  readonly timeoutsAsRefusal: number;
}

export const DEFAULT_RANGE_GROWTH: RangeGrowth = { growAfter: 4, forgetAfter: 128, timeoutsAsRefusal: 3 };

/**
 * The block range size while catching up. A refusal of n blocks drops the size to the largest size
 * that worked since (or to n / 2 when none did) and remembers n as too large. After `growAfter`
 * full-size successes in a row the size grows: halfway to the smallest size refused (a binary
 * search that settles just below a provider's hard limit, with a few refusals), or doubles when
 * nothing is known too large; never above `max`. A range shorter than the size (at the head) says
 * nothing about the size and changes nothing.
 * Invariant: 1 <= size <= max; sizes at or above `tooLarge` are not tried until it is forgotten.
 */
export class RangeSize {
  private size: number;
  /** The largest size that succeeded since the last refusal at or below it (0: none). */
  private worked = 0;
  /** The smallest size refused and not yet forgotten. */
  private tooLarge = Number.POSITIVE_INFINITY;
  private streak = 0;
  private sinceRefusal = 0;
  private timeouts = 0;

  constructor(
    readonly max: number,
    private readonly rule: RangeGrowth = DEFAULT_RANGE_GROWTH,
  ) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError('max range must be an integer >= 1');
    this.size = max;
  }

  current(): number {
    return this.size;
  }

  /** The provider refused a range of `blocks` blocks. */
  refused(blocks: number): void {
    const n = Math.max(1, Math.min(blocks, this.size));
    this.tooLarge = Math.min(this.tooLarge, n);
    if (this.worked >= n) this.worked = 0; // that size failed now (a dense stretch: too many results)
    this.size = this.worked > 0 ? this.worked : Math.max(1, Math.floor(n / 2));
    this.streak = 0;
    this.sinceRefusal = 0;
    this.timeouts = 0;
  }

  /** A range call of `blocks` blocks timed out: retried as is, narrowed only after repeated timeouts. */
  timedOut(blocks: number): void {
    if (blocks <= 1) return;
    this.timeouts += 1;
    if (this.timeouts >= this.rule.timeoutsAsRefusal) this.refused(blocks);
  }

  /** A range of `blocks` blocks was read. */
  succeeded(blocks: number): void {
    this.timeouts = 0;
    if (blocks < this.size) return;
    this.worked = Math.max(this.worked, blocks);
    this.sinceRefusal += 1;
    if (this.sinceRefusal >= this.rule.forgetAfter) this.tooLarge = Number.POSITIVE_INFINITY;
    this.streak += 1;
    if (this.streak < this.rule.growAfter) return;
    this.streak = 0;
    const target = this.tooLarge === Number.POSITIVE_INFINITY ? this.size * 2 : Math.floor((this.size + this.tooLarge) / 2);
    this.size = Math.min(this.max, Math.max(this.size, target));
  }
}
