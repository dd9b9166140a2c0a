import { randomUUID } from 'node:crypto';
import { eventually } from '../support/stack';
import { COMMIT_WAKE_MS, WebhookDispatcher } from '../../src/webhooks/dispatcher';
import { RequestLoad } from '../../src/lib/request-load';
import { claimDueEvent, keepUnaddressedEvents } from '../../src/webhooks/delivery';
import { announceOutboxEvents, insertOutboxEventsSql } from '../../src/webhooks/outbox';
import { MerchantsRepo } from '../../src/store/repos/merchants';
import { SecretBox } from '../../src/security/secret-box';
import { loadDaemonKeys } from '../../src/security/key-files';
import { createLogger } from '../../src/observability/logger';
import { OutboxEvent } from '../../src/store/entities';
import { RawSql } from '../../src/store/raw-sql';
import { startWebhookStack, createShop, listWebhooks, type WebhookStack, type Shop } from './stack';

/**
 * Events with no webhook URL anywhere are kept as `unaddressed` in bulk (keepUnaddressedEvents): a
 * merchant that polls is not failing deliveries, so no attempt is logged and nothing is failed;
 * the event stays in the outbox, redeliverable. One statement for many events.
 */
describe('webhook events without a URL', () => {
  let stack: WebhookStack;
  let sql: RawSql;
  let noUrl: Shop;
  let withUrl: Shop;
  beforeAll(async () => {
    // Polling once a minute and events written without announcing them: the daemon's own dispatcher
    // stays out of the way of the statement under test.
    stack = await startWebhookStack({ pollMs: 60_000 });
    sql = new RawSql(stack.daemon.orm);
    noUrl = await createShop(stack);
    withUrl = await createShop(stack, 'https://hooks.example.test/in');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** A dispatcher of its own on the stack's database (the stack's own polls once a minute). */
  function dispatcherWith(options: Partial<ConstructorParameters<typeof WebhookDispatcher>[0]>): WebhookDispatcher {
    const keys = loadDaemonKeys(stack.dataDir, {});
    return new WebhookDispatcher({
      orm: stack.daemon.orm,
      logger: createLogger('silent'),
      clock: stack.daemon.clock,
      merchants: new MerchantsRepo(new SecretBox(keys.masterKey)),
      allowPrivateTargets: true,
      pollMs: 60_000,
      ...options,
    });
  }

  let n = 0;
  function event(shop: Shop, aggregateType: 'invoice' | 'withdrawal', aggregateId: string, at: Date, targetUrl: string | null = null): OutboxEvent {
    const id = `evt_unaddr${String(++n).padStart(18, '0')}`;
    const ev = new OutboxEvent(id, shop.merchantId, aggregateType, aggregateId, `${aggregateType}.x`, `{"id":"${id}"}`, at);
    ev.targetUrl = targetUrl;
    return ev;
  }

  /** Each event with its attempt log and `tx`, the id of the transaction that last wrote its row (xmin). */
  async function rows(
    ids: readonly string[],
  ): Promise<{ id: string; status: string; attempts: number; tx: number; log: { attempt: number; error: string | null; status_code: number | null; row: number }[] }[]> {
    const events = (
      await sql.query<{ id: string; status: string; attempts: number; tx: string }>('select id, status, attempts, xmin::text as tx from outbox_events where id = any($1::text[]) order by seq', [ids])
    ).map((e) => ({ ...e, tx: Number(e.tx) }));
    const log = await sql.query<{ event_id: string; attempt: number; error: string | null; status_code: number | null; id: number }>(
      'select event_id, attempt, error, status_code, id from webhook_attempts where event_id = any($1::text[]) order by id',
      [ids],
    );
    return events.map((e) => ({ ...e, log: log.filter((l) => l.event_id === e.id).map((l) => ({ attempt: l.attempt, error: l.error, status_code: l.status_code, row: l.id })) }));
  }

  it('keeps the oldest pending event of each aggregate with no target as unaddressed, and nothing else', async () => {
    // Due in the daemon's future: its own dispatcher never finds them due.
    const at = new Date(stack.daemon.clock.now().getTime() + 3_600_000);
    const now = new Date(at.getTime() + 1_000);
    const a = randomUUID();
    const b = randomUUID();
    const events = [
      event(noUrl, 'withdrawal', a, at), // oldest of a: kept
      event(noUrl, 'withdrawal', a, at), // waits for the one before it
      event(noUrl, 'invoice', b, at), // invoice without its own URL, merchant without one: kept
      event(noUrl, 'invoice', randomUUID(), at, 'https://hooks.example.test/invoice'), // has a target: left pending
      event(withUrl, 'withdrawal', randomUUID(), at), // merchant's URL: left pending
      event(noUrl, 'withdrawal', randomUUID(), new Date(now.getTime() + 60_000)), // not due yet
    ];
    await sql.transaction((q) => insertOutboxEventsSql(q, events));
    const ids = events.map((e) => e.id);

    const kept = await keepUnaddressedEvents(sql.query, now, 100);
    expect(kept.map((e) => e.id).sort()).toEqual([ids[0], ids[2]].sort());
    expect(kept.find((e) => e.id === ids[0])).toEqual({ id: ids[0], merchantId: noUrl.merchantId, aggregateType: 'withdrawal', aggregateId: a, type: 'withdrawal.x' });

    let got = await rows(ids);
    // Not an attempt: no log row, attempts unchanged.
    expect(got.map((e) => [e.status, e.attempts, e.log.length])).toEqual([
      ['unaddressed', 0, 0],
      ['pending', 0, 0],
      ['unaddressed', 0, 0],
      ['pending', 0, 0],
      ['pending', 0, 0],
      ['pending', 0, 0],
    ]);

    // The next one of aggregate a is due now that its predecessor is no longer pending.
    expect((await keepUnaddressedEvents(sql.query, now, 100)).map((e) => e.id)).toEqual([ids[1]]);
    expect(await keepUnaddressedEvents(sql.query, now, 100)).toEqual([]);

    // A redelivered event (pending again) with still no URL is kept again, still without an attempt.
    await sql.query(`update outbox_events set status = 'pending', attempts = 0, next_attempt_at = $2 where id = $1`, [ids[0], at.toISOString()]);
    expect((await keepUnaddressedEvents(sql.query, now, 100)).map((e) => e.id)).toEqual([ids[0]]);
    got = await rows([ids[0]!]);
    expect(got[0]).toMatchObject({ status: 'unaddressed', attempts: 0, log: [] });
    // Leave no pending event behind for the next case.
    await sql.query('delete from outbox_events where id = any($1::text[])', [ids]);
  });

  it('respects the limit and skips events another worker holds locked', async () => {
    const at = new Date(stack.daemon.clock.now().getTime() + 7_200_000);
    const now = new Date(at.getTime() + 1_000);
    const events = Array.from({ length: 5 }, () => event(noUrl, 'withdrawal', randomUUID(), at));
    await sql.transaction((q) => insertOutboxEventsSql(q, events));
    const ids = events.map((e) => e.id);

    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    // Another worker holds the first event (as a claim does for its attempt).
    const holder = sql.transaction(async (q) => {
      await q('select id from outbox_events where id = $1 for update', [ids[0]]);
      locked();
      await held;
    });
    await isLocked;
    try {
      const first = await keepUnaddressedEvents(sql.query, now, 2);
      expect(first.map((e) => e.id)).toEqual([ids[1], ids[2]]);
      const second = await keepUnaddressedEvents(sql.query, now, 10);
      expect(second.map((e) => e.id)).toEqual([ids[3], ids[4]]);
    } finally {
      release();
      await holder;
    }
    expect((await keepUnaddressedEvents(sql.query, now, 10)).map((e) => e.id)).toEqual([ids[0]]);
    const got = await rows(ids);
    expect(got.map((e) => [e.status, e.attempts, e.log.length])).toEqual(ids.map(() => ['unaddressed', 0, 0]));
  });

  it('a claim passes over events without a target (left to the bulk statement) and takes the first one with a target', async () => {
    // Due before what the tests above left pending (an hour ahead), after what the daemon's own dispatcher sees.
    const at = new Date(stack.daemon.clock.now().getTime() + 1_800_000);
    const now = new Date(at.getTime() + 1_000);
    const events = [
      event(noUrl, 'withdrawal', randomUUID(), at),
      event(noUrl, 'invoice', randomUUID(), at),
      event(withUrl, 'withdrawal', randomUUID(), at), // the merchant's URL
      event(noUrl, 'invoice', randomUUID(), at, 'https://hooks.example.test/own'),
    ];
    await sql.transaction((q) => insertOutboxEventsSql(q, events));
    const claimed = await sql.transaction(async (q) => {
      const first = await claimDueEvent(q, now);
      // Still locked by this transaction: the next claim takes the one after it.
      const second = await sql.transaction((q2) => claimDueEvent(q2, now));
      return [first, second];
    });
    expect(claimed.map((e) => [e?.id, e?.target])).toEqual([
      [events[2]!.id, 'https://hooks.example.test/in'],
      [events[3]!.id, 'https://hooks.example.test/own'],
    ]);
    // The two without a target are still pending for keepUnaddressedEvents, which keeps exactly them.
    const kept = await keepUnaddressedEvents(sql.query, now, 100);
    expect(
      kept
        .map((e) => e.id)
        .filter((id) => events.some((e) => e.id === id))
        .sort(),
    ).toEqual([events[0]!.id, events[1]!.id].sort());
  });

  it('wakes once for the commits announced within COMMIT_WAKE_MS, not once per commit', async () => {
    const dispatcher = dispatcherWith({});
    const kicks = jest.spyOn(dispatcher, 'kick');
    dispatcher.start();
    try {
      const startKicks = kicks.mock.calls.length; // start() looks once at once
      const one = [event(noUrl, 'withdrawal', randomUUID(), new Date())];
      for (let i = 0; i < 100; i++) announceOutboxEvents(stack.daemon.orm, one);
      expect(kicks.mock.calls.length - startKicks).toBe(0);
      await new Promise((r) => setTimeout(r, COMMIT_WAKE_MS + 30));
      expect(kicks.mock.calls.length - startKicks).toBe(1);
      announceOutboxEvents(stack.daemon.orm, one);
      await new Promise((r) => setTimeout(r, COMMIT_WAKE_MS + 30));
      expect(kicks.mock.calls.length - startKicks).toBe(2);
    } finally {
      await dispatcher.stop();
    }
  });

  it('while writing requests are in flight, sets aside events without a URL at most once per interval; at once when none is', async () => {
    const requestLoad = new RequestLoad();
    const dispatcher = dispatcherWith({ requestLoad, unaddressedBusyIntervalMs: 2_000 });
    const shop = await createShop(stack);
    const statusOf = async (e: OutboxEvent): Promise<string> => (await rows([e.id]))[0]!.status;
    const add = async (): Promise<OutboxEvent> => {
      const e = event(shop, 'withdrawal', randomUUID(), stack.daemon.clock.now());
      await sql.transaction((q) => insertOutboxEventsSql(q, [e]));
      return e;
    };
    let release: () => void = () => undefined;
    const inFlight = requestLoad.around(() => new Promise<void>((r) => (release = r)));
    const first = await add();
    try {
      // Busy: the first search (start() searches at once) sets aside what is due...
      dispatcher.start();
      await eventually(async () => ((await statusOf(first)) === 'unaddressed' ? true : undefined), 5_000, 'first event kept');
      // ...the next searches within the interval leave the new one pending...
      const second = await add();
      dispatcher.kick();
      await new Promise((r) => setTimeout(r, 50));
      dispatcher.kick();
      await new Promise((r) => setTimeout(r, 50));
      expect(await statusOf(second)).toBe('pending');
      // ...and a search after the interval takes it, still busy: never paused outright.
      await new Promise((r) => setTimeout(r, 2_000));
      expect(requestLoad.busy).toBe(true);
      dispatcher.kick();
      await eventually(async () => ((await statusOf(second)) === 'unaddressed' ? true : undefined), 5_000, 'second event kept while busy');
      // A third one within the interval: the search its commit wakes (kicked here: announcing it
      // would wake the stack daemon's own dispatcher too) leaves it pending...
      const third = await add();
      dispatcher.kick();
      await new Promise((r) => setTimeout(r, 200));
      expect(await statusOf(third)).toBe('pending');
      // ...and the last request's end wakes the dispatcher, which sets it aside at once (the interval
      // is 2 s and the poll once a minute: only the idle wake-up can do it this soon).
      release();
      await inFlight;
      await eventually(async () => ((await statusOf(third)) === 'unaddressed' ? true : undefined), 1_000, 'third event kept once idle');
    } finally {
      await dispatcher.stop();
    }
  });

  it('an idle moment wakes the dispatcher only when a search left events without a URL for it', async () => {
    const requestLoad = new RequestLoad();
    const dispatcher = dispatcherWith({ requestLoad, unaddressedBusyIntervalMs: 2_000 });
    const kicks = jest.spyOn(dispatcher, 'kick');
    dispatcher.start();
    try {
      // start() searches at once, with nothing in flight: nothing is left for later.
      await new Promise((r) => setTimeout(r, COMMIT_WAKE_MS + 100));
      const before = kicks.mock.calls.length;
      // Requests come and go (as invoice creations do, many times a second): no search for them.
      for (let i = 0; i < 20; i++) await requestLoad.around(() => new Promise((r) => setTimeout(r, 1)));
      await new Promise((r) => setTimeout(r, COMMIT_WAKE_MS + 100));
      expect(kicks.mock.calls.length).toBe(before);

      // A search that skips the bulk statement while busy (within the interval of the one at start)...
      let release: () => void = () => undefined;
      const inFlight = requestLoad.around(() => new Promise<void>((r) => (release = r)));
      dispatcher.kick();
      await new Promise((r) => setTimeout(r, 100));
      const afterSearch = kicks.mock.calls.length;
      // ...is followed by one wake-up when the last request ends.
      release();
      await inFlight;
      await new Promise((r) => setTimeout(r, COMMIT_WAKE_MS + 100));
      expect(kicks.mock.calls.length).toBe(afterSearch + 1);
    } finally {
      await dispatcher.stop();
    }
  });

  it('two dispatchers set aside each of many events, in order per aggregate, without an attempt', async () => {
    const dispatchers = [0, 1].map(() => dispatcherWith({ pollMs: 10 }));
    const shop = await createShop(stack);
    const at = stack.daemon.clock.now();
    const aggregates = Array.from({ length: 40 }, () => randomUUID());
    // Three events per aggregate, interleaved: 120 events, more than one statement's worth.
    const events = [0, 1, 2].flatMap(() => aggregates.map((id, i) => event(shop, i % 2 ? 'invoice' : 'withdrawal', id, at)));
    events.push(...Array.from({ length: 200 }, () => event(shop, 'withdrawal', randomUUID(), at)));
    await sql.transaction((q) => insertOutboxEventsSql(q, events));
    for (const d of dispatchers) d.start();
    try {
      await eventually(
        async () => {
          const evs = await listWebhooks(stack, { merchant_id: shop.merchantId, limit: 500 });
          return evs.length === events.length && evs.every((e) => e.status === 'unaddressed') ? true : undefined;
        },
        20_000,
        'every event kept',
      );
    } finally {
      for (const d of dispatchers) await d.stop();
    }
    const got = await rows(events.map((e) => e.id));
    expect(got.filter((e) => e.attempts !== 0 || e.log.length !== 0)).toEqual([]);
    // In order per aggregate: each event was set aside by a later statement than its predecessor
    // (xmin, the writing transaction's id, grows; one statement handles one event per aggregate).
    const tx = new Map(got.map((e) => [e.id, e.tx]));
    for (const id of aggregates) {
      const mine = events.filter((e) => e.aggregateId === id).map((e) => tx.get(e.id)!);
      expect(mine[0]! < mine[1]! && mine[1]! < mine[2]!).toBe(true);
    }
  });
});
