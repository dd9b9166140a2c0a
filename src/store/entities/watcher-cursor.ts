import { BigIntType, EntitySchema } from '@mikro-orm/core';

/** The last block a network's watcher fully processed; it resumes from here after downtime. */
export class WatcherCursor {
  paused = false;
  /** The last block the watcher saw become final; checked against the chain at start. */
  finalHeight: number | null = null;
  finalHash: string | null = null;
  constructor(
    public network: string,
    public height: number,
    public hash: string,
    public updatedAt: Date,
  ) {}
}

export const WatcherCursorSchema = new EntitySchema<WatcherCursor>({
  class: WatcherCursor,
  tableName: 'watcher_cursors',
  properties: {
    network: { type: 'string', length: 16, primary: true },
    height: { type: new BigIntType('number') },
    hash: { type: 'string', length: 128 },
    finalHeight: { type: new BigIntType('number'), nullable: true },
    finalHash: { type: 'string', length: 128, nullable: true },
    paused: { type: 'boolean' },
    updatedAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});
