import { EntitySchema } from '@mikro-orm/core';
import type { ChainCursor } from '../../chains/types';

/**
 * Where a network's watcher resumes. `cursor` and `finalized` are the family's own JSON (opaque to
 * the daemon: only the adapter builds and reads them).
 */
export class WatcherCursor {
  paused = false;
  /** The last final point the watcher saw (the family's cursor JSON); checked against the chain at start. */
  finalized: ChainCursor | null = null;
  constructor(
    public network: string,
    public cursor: ChainCursor,
    public updatedAt: Date,
  ) {}
}

export const WatcherCursorSchema = new EntitySchema<WatcherCursor>({
  class: WatcherCursor,
  tableName: 'watcher_cursors',
  properties: {
    network: { type: 'string', length: 16, primary: true },
    cursor: { type: 'json' },
    finalized: { type: 'json', nullable: true },
    paused: { type: 'boolean' },
    updatedAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});
