import { MikroORM } from '@mikro-orm/postgresql';
import { createActor, SimulatedClock, type Snapshot } from 'xstate';
import { ormConfig } from '../../src/store/orm';
import { MIGRATIONS } from '../../src/store/migrations';
import { createInvoiceContext, type InvoiceMachineContext } from '../../src/domain/invoice-context';
import { AWAITING_CHAIN_TAG, invoiceMachine } from '../../src/domain/invoice-machine';
import { legacyInvoiceMachine } from '../support/legacy-invoice-machine';
import { createTestDatabase, type TestDatabase } from '../support/database';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const EXPIRES = new Date(T0 + 30 * 60_000).toISOString();

/** A snapshot as the daemon wrote it before the chain-time rule: the old machine, no `chainTime`. */
function oldSnapshot(uuid: string, observedAt: number): Record<string, unknown> {
  const { chainTime: _none, ...ctx } = createInvoiceContext({ uuid, payAmount: '10', requiredConfirmations: 3, expiresAt: EXPIRES, now: new Date(T0), network: 'POLYGON' });
  const clock = new SimulatedClock();
  clock.set(T0);
  const actor = createActor(legacyInvoiceMachine, { input: ctx as InvoiceMachineContext, clock }).start();
  actor.send({ type: 'RESUME', at: new Date(observedAt).toISOString() });
  const json = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as Record<string, unknown>;
  actor.stop();
  return json;
}

describe('migration 20261128000000-invoice-snapshot-chain-time', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('cp_migr_chain_time');
  });
  afterAll(async () => {
    await db.drop();
  });

  it('gives open invoices with a network chainTime = observedAt, and leaves every other snapshot as it was', async () => {
    const orm = await MikroORM.init(ormConfig({ clientUrl: db.url }));
    try {
      // Up to the migration before this one: the schema old snapshots were written under.
      const mine = MIGRATIONS.findIndex((m) => m.name === 'Migration20261128000000InvoiceSnapshotChainTime');
      await orm.getMigrator().up({ to: MIGRATIONS[mine - 1]!.name });
      const conn = orm.em.fork().getConnection();
      const merchant = '11111111-1111-4111-8111-111111111111';
      const insert = (uuid: string, network: string | null, open: boolean, snapshot: unknown) =>
        conn.execute(
          `insert into invoices (uuid, merchant_id, status, amount, platform_fee, network_fee, pay_amount, merchant_net, fee_payer, network, metadata_json, expires_at, open, actor_snapshot, created_at, updated_at)
           values (?, ?, 'pending', 10, 0, 0, 10, 10, 'merchant', ?, '{}', ?, ?, ?::jsonb, now(), now())`,
          [uuid, merchant, network, EXPIRES, open, snapshot === null ? null : JSON.stringify(snapshot)],
        );
      const withNetwork = oldSnapshot('a0000000-0000-4000-8000-000000000001', T0 + 5 * 60_000);
      await insert('a0000000-0000-4000-8000-000000000001', 'POLYGON', true, withNetwork);
      await insert('a0000000-0000-4000-8000-000000000002', null, true, oldSnapshot('a0000000-0000-4000-8000-000000000002', T0));
      await insert('a0000000-0000-4000-8000-000000000003', 'POLYGON', false, oldSnapshot('a0000000-0000-4000-8000-000000000003', T0));
      const already = { ...withNetwork, context: { ...(withNetwork.context as object), chainTime: new Date(T0 + 60_000).toISOString() } };
      await insert('a0000000-0000-4000-8000-000000000004', 'POLYGON', true, already);
      await insert('a0000000-0000-4000-8000-000000000005', 'POLYGON', true, null);

      await orm.getMigrator().up();
      const rows = await conn.execute<{ uuid: string; actor_snapshot: { value: unknown; context: Record<string, unknown> } | null }[]>('select uuid, actor_snapshot from invoices order by uuid');
      const byId = new Map(rows.map((r) => [r.uuid.slice(-1), r.actor_snapshot]));
      expect(byId.get('1')!.context.chainTime).toBe(new Date(T0 + 5 * 60_000).toISOString());
      expect(byId.get('1')!.context.observedAt).toBe(new Date(T0 + 5 * 60_000).toISOString());
      expect('chainTime' in byId.get('2')!.context).toBe(false); // no network: nothing to wait for
      expect('chainTime' in byId.get('3')!.context).toBe(false); // closed
      expect(byId.get('4')!.context.chainTime).toBe(new Date(T0 + 60_000).toISOString()); // kept
      expect(byId.get('5')).toBeNull();

      // The migrated snapshot restores into the new machine and waits for its chain past expires_at.
      const clock = new SimulatedClock();
      clock.set(T0 + 40 * 60_000);
      const actor = createActor(invoiceMachine, { snapshot: byId.get('1') as unknown as Snapshot<unknown>, clock, input: undefined as never }).start();
      actor.send({ type: 'RESUME', at: new Date(clock.now()).toISOString() });
      expect(actor.getSnapshot().context.status).toBe('pending');
      expect(actor.getSnapshot().hasTag(AWAITING_CHAIN_TAG)).toBe(true);
      actor.stop();
    } finally {
      await orm.close();
    }
  });
});
