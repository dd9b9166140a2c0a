/** A fixed-capacity buffer keeping the newest items (oldest dropped first). */
export class RingBuffer<T> {
  private readonly items: T[] = [];

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
  }

  push(item: T): void {
    this.items.push(item);
    if (this.items.length > this.capacity) this.items.shift();
  }

  /** Oldest first. */
  toArray(): T[] {
    return [...this.items];
  }
}
