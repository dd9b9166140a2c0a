import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import pino from 'pino';
import { createActor } from 'xstate';
import { createWithdrawalContext, type CreateWithdrawalContextInput } from '../../domain/withdrawal-context';
import { withdrawalMachine } from '../../domain/withdrawal-machine';
import { openDatabase } from '../../store/orm';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { DaemonClock } from '../daemon-clock';
import { persistedInitialSnapshot, WithdrawalActors } from './withdrawal-actors';

/**
 * initialSnapshotJson computes a first snapshot once per shape of context and substitutes the
 * withdrawal's uuid, address and net payout: it must give exactly what a real actor persists.
 */
describe('withdrawal initial snapshots from templates', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  let actors: WithdrawalActors;
  const clock = new DaemonClock();

  beforeAll(async () => {
    db = await createTestDatabase('cp_wdsnap');
    orm = await openDatabase({ clientUrl: db.url });
    actors = new WithdrawalActors({ orm, logger: pino({ level: 'silent' }), clock, adapters: new Map(), livemode: false });
  });
  afterAll(async () => {
    await actors?.stop();
    await orm?.close();
    await db?.drop();
  });

  /** The real thing, written out here (not the exported helper): a started actor's persisted snapshot, as JSON. */
  function realSnapshotJson(input: CreateWithdrawalContextInput): string {
    const actor = createActor(withdrawalMachine.provide({}), { input: createWithdrawalContext(input), clock });
    // Only the first macrostep is persisted here: the invoked sign step never gets to run before stop().
    actor.start();
    const json = JSON.stringify(actor.getPersistedSnapshot());
    actor.stop();
    return json;
  }

  const addresses = [
    'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
    '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs',
    'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY2ndRqUqgfYh9p',
    'with "quotes", \\backslashes\\ and , } ] : characters',
    'unicode é 中文 \u2028 \u0000 end',
    'review', // a value that is also a state name
  ];

  it("equals a real actor's persisted snapshot for every shape and value, first use and cached", () => {
    let compared = 0;
    for (const network of ['TRC20', 'BEP20', 'TON', 'SOLANA']) {
      for (const review of [true, false]) {
        for (const requiredConfirmations of [1, 19]) {
          for (const pollIntervalMs of [50, 5_000]) {
            for (const [i, address] of addresses.entries()) {
              for (const netPayout of ['1', '0.000001', '123456789.123456789012345678']) {
                const input = { uuid: randomUUID(), network, address, netPayout, requiredConfirmations, review, pollIntervalMs };
                const context = createWithdrawalContext(input);
                const json = actors.initialSnapshotJson(context);
                const real = realSnapshotJson(input);
                expect(json).toBe(real);
                expect(actors.initialSnapshot(context)).toEqual(JSON.parse(real));
                expect(persistedInitialSnapshot(context, clock)).toEqual(JSON.parse(real));
                if (i === 0) expect(JSON.parse(json)).toMatchObject({ status: 'active', value: review ? 'review' : { processing: 'signing' } });
                compared++;
              }
            }
          }
        }
      }
    }
    expect(compared).toBe(4 * 2 * 2 * 2 * addresses.length * 3);
    // One template per shape (network x review x confirmations x poll interval), each usable.
    const templates = (actors as unknown as { snapshotTemplates: Map<string, string[] | null> }).snapshotTemplates;
    expect(templates.size).toBe(4 * 2 * 2 * 2);
    expect([...templates.values()].every((t) => t !== null && t.length >= 7)).toBe(true);
  });

  it("a processing snapshot carries the sign step's input with this withdrawal's own values", () => {
    const uuid = randomUUID();
    const context = createWithdrawalContext({ uuid, network: 'TRC20', address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', netPayout: '4.5', requiredConfirmations: 3, review: false, pollIntervalMs: 50 });
    actors.initialSnapshotJson(context); // template made
    const other = createWithdrawalContext({ uuid: randomUUID(), network: 'TRC20', address: 'TXYZ', netPayout: '7', requiredConfirmations: 3, review: false, pollIntervalMs: 50 });
    const json = actors.initialSnapshotJson(other);
    expect(json).not.toContain(uuid);
    expect(json).toContain(JSON.stringify(other.uuid));
    expect(json.split('"TXYZ"').length - 1).toBeGreaterThanOrEqual(2); // context and the sign step's input
  });
});
