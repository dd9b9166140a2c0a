import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type { Logger } from 'pino';
import { ALL_ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

export interface OrmOptions {
  readonly clientUrl: string;
  readonly logger?: Logger;
  readonly poolMax?: number;
}

export function ormConfig(options: OrmOptions): Options {
  return {
    clientUrl: options.clientUrl,
    entities: ALL_ENTITIES,
    extensions: [Migrator],
    discovery: { warnWhenNoEntities: true },
    // Decimal columns stay strings end to end: a JS number never holds money.
    forceUndefined: false,
    pool: { min: 0, max: options.poolMax ?? 20 },
    // Every unit of work forks explicitly (em.fork()); the global context is a bug.
    allowGlobalContext: false,
    debug: false,
    migrations: {
      migrationsList: MIGRATIONS,
      tableName: 'mikro_orm_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
    logger: (message) => options.logger?.debug({ orm: message }, 'orm'),
  };
}

/** Connects and applies the committed migrations (idempotent). */
export async function openDatabase(options: OrmOptions): Promise<MikroORM> {
  const orm = await MikroORM.init(ormConfig(options));
  await orm.getMigrator().up();
  return orm;
}
