import { MikroORM } from '@mikro-orm/postgresql';
import pino from 'pino';
import { ActorActivity, type ActorActivityRecord } from '../../src/actors/introspection/activity';
import { InvoiceActors } from '../../src/actors/invoices/invoice-actors';
import { NetworkWatcher } from '../../src/actors/watchers/network-watcher';
import { createAddressCodec } from '../../src/chains/codecs';
import { DevnetAdapter } from '../../src/chains/devnet/adapter';
import { eventually, manualClock } from '../../src/chains/devnet/testing';
import { MIGRATIONS } from '../../src/store/migrations';
import { ormConfig } from '../../src/store/orm';
import { createTestDatabase, type TestDatabase } from '../support/database';

const MNEMONIC = 'test test test test test test test test test test test junk';
const MINE = 'Migration20261128010000WatcherCursorJson';

describe('migration 20261128010000-watcher-cursor-json', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('cp_migr_cursor_json');
  });
  afterAll(async () => {
    await db.drop();
  });

  it('moves height + hash (and the last final block) into the family JSON; the watcher resumes from exactly the same block', async () => {
    const orm = await MikroORM.init(ormConfig({ clientUrl: db.url }));
    const clock = manualClock();
    const chain = new DevnetAdapter({ network: 'POLYGON', codec: createAddressCodec('POLYGON', { mnemonic: MNEMONIC }), clock, blockIntervalMs: 0, finalityDepth: 3 });
    const payee = chain.deriveDepositAddress(0);
    let watcher: NetworkWatcher | undefined;
    let actors: InvoiceActors | undefined;
    try {
      // The schema the old cursors were written under.
      const mine = MIGRATIONS.findIndex((m) => m.name === MINE);
      await orm.getMigrator().up({ to: MIGRATIONS[mine - 1]!.name });
      const conn = orm.em.fork().getConnection();
      // A payment in every block 1..8; the old watcher had processed block 5 (block 3 final).
      for (let i = 1; i <= 8; i++) await chain.pay({ to: payee, amount: `${i}` });
      const hash = async (h: number) => (await chain.block(h))!.hash;
      await conn.execute(`insert into watcher_cursors (network, height, hash, final_height, final_hash, paused, updated_at) values ('POLYGON', 5, ?, 3, ?, false, now())`, [
        await hash(5),
        await hash(3),
      ]);
      await conn.execute(`insert into watcher_cursors (network, height, hash, final_height, final_hash, paused, updated_at) values ('BEP20', 42, '0xabc', null, null, true, now())`);

      await orm.getMigrator().up({ to: MINE });
      const rows = await conn.execute<{ network: string; cursor: unknown; finalized: unknown; paused: boolean }[]>('select network, cursor, finalized, paused from watcher_cursors order by network');
      expect(rows).toEqual([
        { network: 'BEP20', cursor: { height: 42, hash: '0xabc' }, finalized: null, paused: true },
        { network: 'POLYGON', cursor: { height: 5, hash: await hash(5) }, finalized: { height: 3, hash: await hash(3) }, paused: false },
      ]);
      const columns = await conn.execute<{ column_name: string }[]>(`select column_name from information_schema.columns where table_name = 'watcher_cursors' order by column_name`);
      expect(columns.map((c) => c.column_name)).toEqual(['cursor', 'finalized', 'network', 'paused', 'updated_at']);

      // The watcher reads the migrated cursor through its adapter and goes on at block 6 (on the
      // schema of today: the later migrations leave the cursors as they are).
      await orm.getMigrator().up();
      const logger = pino({ level: 'silent' });
      actors = new InvoiceActors({ orm, logger, clock, writeOutbox: async () => undefined, onClosed: () => undefined });
      const activity = new ActorActivity('watcher', () => clock.now(), 100);
      const seen: ActorActivityRecord[] = [];
      activity.subscribe((r) => seen.push(r));
      watcher = new NetworkWatcher({ network: 'POLYGON', adapter: chain, orm, logger, clock, actors, activity, requiredConfirmations: async () => 3 });
      watcher.addWatched([chain.normalizeAddress(payee)]);
      await watcher.start();
      expect(watcher.status().cursor).toBe(5);
      await eventually(() => watcher!.status().cursor === 8, 5000);
      const heights = (type: string) =>
        seen.filter((r) => r.type === type).map((r) => (r.payload as { height?: number; block_height?: number }).height ?? (r.payload as { block_height: number }).block_height);
      // Not one block skipped, not one seen again: the transfers of blocks 6..8 only.
      expect(heights('transfer')).toEqual([6, 7, 8]);
      expect(heights('block')[0]).toBe(6); // the first block processed is the one after the saved cursor
      // Saved in the family's shape (the in-memory cursor can be a block ahead of the committed one).
      const tip = { height: 8, hash: await hash(8) };
      let saved: unknown;
      for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
        saved = (await conn.execute<{ cursor: unknown }[]>(`select cursor from watcher_cursors where network = 'POLYGON'`))[0]!.cursor;
        if (JSON.stringify(saved) === JSON.stringify(tip)) break;
      }
      expect(saved).toEqual(tip);
    } finally {
      await watcher?.stop();
      await actors?.stop();
      await chain.close();
      await orm.close(true);
    }
  });
});
