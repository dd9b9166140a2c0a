import { createHash } from 'node:crypto';
import type { UnstampedTransfer } from '../../types';
import type { BlockHeader, BlockSource } from '../types';

/** A test chain in memory: blocks with transfers, forks by replacing the top, counts calls. */
export interface MemoryTransfer {
  readonly to: string;
  readonly amount: string;
}

interface MemoryBlock extends BlockHeader {
  readonly transfers: readonly MemoryTransfer[];
}

export class MemoryChain implements BlockSource {
  readonly calls = { head: 0, block: 0, transfers: 0 };
  readonly ranges: Array<[number, number]> = [];
  /** Set to make the next calls fail (e.g. an Error of a given class). */
  failNext: Array<() => Error> = [];
  private blocks: MemoryBlock[] = [];
  private salt = 0;
  /** BlockSource.blockByHash, only with `keepReplaced`: replaced blocks stay findable by hash. */
  readonly blockByHash?: (hash: string) => Promise<BlockHeader | null>;
  /** BlockSource.changed, only with `signalChanges`: resolves at the next mine/rewind after head(). */
  readonly changed?: (signal: AbortSignal) => Promise<void>;
  private readonly replaced = new Map<string, BlockHeader>();
  private version = 0;
  private answered = 0;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly watched: ReadonlySet<string> = new Set(),
    options: { keepReplaced?: boolean; signalChanges?: boolean } = {},
  ) {
    this.push([], 'genesis');
    if (options.keepReplaced) {
      this.blockByHash = async (hash) => this.replaced.get(hash) ?? this.blocks.find((b) => b.hash === hash) ?? null;
    }
    if (options.signalChanges) {
      this.changed = (signal) =>
        this.version !== this.answered || signal.aborted
          ? Promise.resolve()
          : new Promise<void>((resolve) => {
              const done = (): void => {
                this.waiters.delete(done);
                resolve();
              };
              this.waiters.add(done);
              signal.addEventListener('abort', done, { once: true });
            });
    }
  }

  get headHeight(): number {
    return this.blocks.length - 1;
  }

  hashAt(height: number): string {
    return this.blocks[height]!.hash;
  }

  mine(count = 1, transfers: readonly MemoryTransfer[] = []): void {
    for (let i = 0; i < count; i++) this.push(i === 0 ? transfers : []);
    this.signal();
  }

  /** Drops the top `depth` blocks (the next mine() builds a different branch). */
  rewind(depth: number): void {
    for (const b of this.blocks.slice(this.blocks.length - depth)) this.replaced.set(b.hash, { height: b.height, hash: b.hash, parentHash: b.parentHash, timestamp: b.timestamp });
    this.blocks = this.blocks.slice(0, this.blocks.length - depth);
    this.salt += 1;
    this.signal();
  }

  async head(): Promise<number> {
    this.calls.head += 1;
    this.answered = this.version;
    this.maybeFail();
    return this.headHeight;
  }

  async block(height: number): Promise<BlockHeader | null> {
    this.calls.block += 1;
    this.maybeFail();
    const b = this.blocks[height];
    return b ? { height: b.height, hash: b.hash, parentHash: b.parentHash, timestamp: b.timestamp } : null;
  }

  async transfers(from: number, to: number): Promise<UnstampedTransfer[]> {
    this.calls.transfers += 1;
    this.ranges.push([from, to]);
    this.maybeFail();
    return this.blocks.slice(from, to + 1).flatMap((b) =>
      b.transfers
        .map((t, i) => ({ t, i }))
        .filter(({ t }) => this.watched.has(t.to))
        .map(({ t, i }) => ({
          kind: 'transfer' as const,
          network: 'POLYGON' as const,
          txHash: `0x${b.hash.slice(2, 10)}${i}`,
          eventIndex: i,
          blockHeight: b.height,
          blockHash: b.hash,
          from: '0xfrom',
          to: t.to,
          memo: null,
          amount: t.amount,
        })),
    );
  }

  private push(transfers: readonly MemoryTransfer[], label = ''): void {
    const height = this.blocks.length;
    const parentHash = height === 0 ? '0x00' : this.blocks[height - 1]!.hash;
    const hash = `0x${createHash('sha256')
      .update(`${parentHash}:${height}:${this.salt}:${label}:${JSON.stringify(transfers)}`)
      .digest('hex')}`;
    this.blocks.push({ height, hash, parentHash, timestamp: new Date(1_700_000_000_000 + height * 1000), transfers });
  }

  private signal(): void {
    this.version += 1;
    for (const wake of [...this.waiters]) wake();
  }

  private maybeFail(): void {
    const next = this.failNext.shift();
    if (next) throw next();
  }
}
