import { BigIntType, EntitySchema } from '@mikro-orm/core';

/** The last block a network's watcher fully processed; it resumes from here after downtime. */
export class WatcherCursor {
  paused = false;
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
    paused: { type: 'boolean' },
    updatedAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});
