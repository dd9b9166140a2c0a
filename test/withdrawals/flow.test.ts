import { ChainpayClient, isPingEvent, isWithdrawalEvent, type Withdrawal, type WithdrawalEvent, type WithdrawalStatus } from '../../clients/typescript/src';
import { startStack, createMerchant, eventually, rpc, type Stack, type MerchantCredentials } from '../support/stack';
import type { Merchant } from '../../src/grpc/generated/chainpay/v1/merchants';
import type { ListWithdrawalsResponse, Withdrawal as GrpcWithdrawal } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { makeCert, Receiver, type TestCert } from '../webhooks/support';
import { addressOf, advance, DAY_S, expectLedgerExact, fund, mine, stackRpcs, waitBroadcast, WD_ENV, whitelist, type Rpcs } from './support';

/**
 * Withdrawals end to end on devnet, driven through the TypeScript client (clients/typescript) with
 * timestamped signatures (X-Service-Timestamp); the operator's side (caps, approval) over gRPC.
 */
describe('withdrawal flow on devnet (through the TypeScript client)', () => {
  let cert: TestCert;
  let receiver: Receiver;
  let stack: Stack;
  let r: Rpcs;
  let m: MerchantCredentials;
  let client: ChainpayClient;
  /** The HTTP status of each answer the client got (a repeated reference is 200, a new one 201). */
  const statuses: number[] = [];
  const payee = addressOf('TRC20', 'flow-payee');

  const events = async (uuid: string): Promise<string[]> => {
    const rows = await stack.daemon.orm.em.fork().execute<{ type: string }[]>('select type from outbox_events where aggregate_id = ? order by seq', [uuid]);
    return rows.map((e) => e.type);
  };
  const audit = async (uuid: string): Promise<string[]> => {
    const rows = await stack.daemon.orm.em.fork().execute<{ action: string }[]>('select action from audit_log where target = ? order by at', [`withdrawal:${uuid}`]);
    return rows.map((e) => e.action);
  };
  const accountSum = async (account: string): Promise<string> => {
    const rows = await stack.daemon.orm.em.fork().execute<{ s: string }[]>(`select coalesce(sum(amount), 0)::float8::text as s from ledger_entries where account = ?`, [account]);
    return rows[0]!.s;
  };
  const balance = async (): Promise<{ available: string; held: string }> => {
    const { available, held } = await client.getBalance();
    return { available, held };
  };
  const waitForWithdrawal = (uuid: string, status: WithdrawalStatus): Promise<Withdrawal> =>
    eventually(
      async () => {
        const w = await client.getWithdrawal(uuid);
        return w.status === status ? w : undefined;
      },
      15_000,
      `withdrawal ${uuid} to be ${status}`,
    );

  beforeAll(async () => {
    cert = makeCert();
    receiver = await Receiver.start(cert);
    stack = await startStack({ env: WD_ENV, daemon: { webhooks: { ca: cert.cert } } });
    r = stackRpcs(stack);
    m = await createMerchant(stack, { webhook_url: receiver.url('/merchant') });
    client = new ChainpayClient({
      baseUrl: stack.baseUrl,
      apiKey: m.apiKey,
      apiSecret: m.apiSecret,
      webhookSecret: m.webhookSecret,
      signing: 'timestamped',
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        statuses.push(res.status);
        return res;
      },
    });
    await fund(r, m.merchantId, '300');
    await whitelist(r, m.merchantId, 'TRC20', payee);
    await advance(r, DAY_S);
    // Small caps so the review path is reachable: per withdrawal 50, rolling 24 h 100.
    await rpc<Merchant>((cb) => stack.clients.merchants.updateMerchant({ merchant_id: m.merchantId, cap_per_withdrawal: '50', cap_daily: '100' }, stack.operator, cb));
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.down();
  });

  it('within the caps: processing at once, tx_hash once broadcast, completed with completed_at at the required confirmations', async () => {
    const w = await client.createWithdrawal({ network: 'TRC20', address: payee, amount: '10.5', reference: 'w-1' });
    expect(statuses.at(-1)).toBe(201);
    expect(Object.keys(w).sort()).toEqual(
      [
        'address',
        'amount',
        'completed_at',
        'created_at',
        'failure_reason',
        'livemode',
        'memo',
        'net_payout',
        'network',
        'network_fee',
        'reference',
        'rejection_reason',
        'status',
        'tx_hash',
        'uuid',
      ].sort(),
    );
    // Devnet: a test object (DESIGN.md, Embedded defaults).
    expect(w).toMatchObject({
      status: 'processing',
      network: 'TRC20',
      address: payee,
      amount: '10.5',
      network_fee: '1',
      net_payout: '9.5',
      reference: 'w-1',
      rejection_reason: null,
      failure_reason: null,
      completed_at: null,
      livemode: false,
    });
    expect(await balance()).toEqual({ available: '289.5', held: '10.5' });

    await waitBroadcast(stack.daemon.orm, w.uuid);
    const sent = await client.getWithdrawal(w.uuid);
    expect(sent.tx_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(sent.status).toBe('processing');
    expect(sent.completed_at).toBeNull();

    await mine(r, 1); // in a block: 1 of 3 confirmations
    await new Promise((res) => setTimeout(res, 600));
    expect((await client.getWithdrawal(w.uuid)).status).toBe('processing');
    await mine(r, 2);
    const done = await waitForWithdrawal(w.uuid, 'completed');
    expect(done.tx_hash).toBe(sent.tx_hash);
    expect(Date.parse(done.completed_at!)).toBeGreaterThanOrEqual(Date.parse(done.created_at));
    expect(await balance()).toEqual({ available: '289.5', held: '0' });
    expect(await accountSum('chain:TRC20:hot')).toBe('9.5');
    expect(await events(w.uuid)).toEqual(['withdrawal.processing', 'withdrawal.completed']);

    // Repeating the reference returns the original (200), whatever the body says now.
    const again = await client.createWithdrawal({ network: 'TRC20', address: payee, amount: '99', reference: 'w-1' });
    expect(statuses.at(-1)).toBe(200);
    expect(again).toEqual(done);
    await expectLedgerExact(stack.daemon.orm);

    // The merchant's webhooks of this withdrawal, verified with the client's verifier (both signatures).
    const delivered = await eventually(
      async () => {
        const ours = receiver
          .at('/merchant')
          .map((d) => client.webhooks.verify(d.body, d.headers))
          .filter((e): e is WithdrawalEvent => isWithdrawalEvent(e) && e.data.uuid === w.uuid);
        return ours.length >= 2 ? ours : undefined;
      },
      10_000,
      'the withdrawal webhooks',
    );
    expect(delivered.map((e) => [e.type, e.data.status])).toEqual([
      ['withdrawal.processing', 'processing'],
      ['withdrawal.completed', 'completed'],
    ]);
    expect(delivered[1]!.data).toEqual(done);

    // The list finds it by reference, through the cursor iterator.
    expect((await client.withdrawals.list({ reference: 'w-1' }).toArray()).map((x) => x.uuid)).toEqual([w.uuid]);
  });

  it('above the per-withdrawal cap: review (held) until approved, then paid out', async () => {
    const w = await client.createWithdrawal({ network: 'TRC20', address: payee, amount: '60' });
    expect(statuses.at(-1)).toBe(201);
    expect(w).toMatchObject({ status: 'review', tx_hash: null, reference: null });
    expect(await balance()).toEqual({ available: '229.5', held: '60' });
    await mine(r, 5);
    await new Promise((res) => setTimeout(res, 400));
    expect(await client.getWithdrawal(w.uuid)).toMatchObject({ status: 'review', tx_hash: null });

    const listed = await rpc<ListWithdrawalsResponse>((cb) => r.withdrawals.listWithdrawals({ merchant_id: '', status: 'review', limit: 0 }, r.operator, cb));
    expect(listed.withdrawals.map((x) => x.uuid)).toEqual([w.uuid]);

    const approved = await rpc<GrpcWithdrawal>((cb) => stack.clients.operator.approveWithdrawal({ uuid: w.uuid }, r.operator, cb));
    expect(approved.status).toBe('processing');
    const err = await rpc((cb) => stack.clients.operator.approveWithdrawal({ uuid: w.uuid }, r.operator, cb)).catch((e: { metadata: { get(k: string): unknown[] } }) => e);
    expect((err as { metadata: { get(k: string): unknown[] } }).metadata.get('chainpay-error-code')).toEqual(['withdrawal_not_in_review']);

    await waitBroadcast(stack.daemon.orm, w.uuid);
    await mine(r, 3);
    const done = await waitForWithdrawal(w.uuid, 'completed');
    expect(done.net_payout).toBe('59');
    expect(await balance()).toEqual({ available: '229.5', held: '0' });
    expect(await events(w.uuid)).toEqual(['withdrawal.review', 'withdrawal.processing', 'withdrawal.completed']);
    expect(await audit(w.uuid)).toEqual(['withdrawal.approve']);
  });

  it('above the rolling daily cap: review; rejected with a reason, the hold returns to the balance', async () => {
    // 10.5 + 60 count in the last 24 h: 30 more exceeds the daily cap of 100.
    const w = await client.createWithdrawal({ network: 'TRC20', address: payee, amount: '30' });
    expect(w.status).toBe('review');
    expect(await balance()).toEqual({ available: '199.5', held: '30' });

    const rejected = await rpc<GrpcWithdrawal>((cb) => stack.clients.operator.rejectWithdrawal({ uuid: w.uuid, reason: 'unusual destination' }, r.operator, cb));
    expect(rejected).toMatchObject({ status: 'rejected', rejection_reason: 'unusual destination' });
    expect(rejected.tx_hash).toBeUndefined();
    expect(await balance()).toEqual({ available: '229.5', held: '0' });
    const got = await client.getWithdrawal(w.uuid);
    expect(got).toMatchObject({ status: 'rejected', rejection_reason: 'unusual destination', completed_at: null, tx_hash: null });
    expect(await events(w.uuid)).toEqual(['withdrawal.review', 'withdrawal.rejected']);
    expect(await audit(w.uuid)).toEqual(['withdrawal.reject']);
    const late = await rpc((cb) => stack.clients.operator.approveWithdrawal({ uuid: w.uuid }, r.operator, cb)).catch((e: { code: number }) => e);
    expect((late as { code: number }).code).toBe(10); // ABORTED -> 409

    // A rejected withdrawal no longer counts: 29.5 fits beside 70.5 of the last 24 h.
    const fits = await client.createWithdrawal({ network: 'TRC20', address: payee, amount: '29.5' });
    expect(fits.status).toBe('processing');
    // The window rolls with the daemon clock: a day later 50 (the per-withdrawal cap) fits again.
    await advance(r, DAY_S);
    const nextDay = await client.createWithdrawal({ network: 'TRC20', address: payee, amount: '50' });
    expect(nextDay.status).toBe('processing');
    // `fits` may have been signed before the day passed: its devnet TRC20 transaction then expired
    // unsent (valid 60 s of chain time) and is signed anew once a final block shows it; blocks are
    // mined until both are confirmed, as the chain would go on.
    await eventually(
      async () => {
        await mine(r, 1);
        const done = await Promise.all([fits.uuid, nextDay.uuid].map(async (uuid) => (await client.getWithdrawal(uuid)).status));
        return done.every((status) => status === 'completed') ? true : undefined;
      },
      30_000,
      'both withdrawals completed',
    );
    expect(await balance()).toEqual({ available: '150', held: '0' });
    await expectLedgerExact(stack.daemon.orm);
  });

  it('the event log through the client: read, resumed from its cursor; a redelivery and a test ping arrive signed', async () => {
    // The log shows an event once every transaction that began before it has ended, cluster-wide
    // (migration 20261129000000-outbox-tx-order): another database's transaction on this PostgreSQL
    // (the suite's other files) may hold the newest back for a moment.
    let log = client.events.list({ limit: 3 });
    const first = await eventually(
      async () => {
        log = client.events.list({ limit: 3 });
        const events = await log.toArray();
        return events.filter((e) => e.type.startsWith('withdrawal.')).length >= 2 ? events : undefined;
      },
      20_000,
      'the withdrawal events in the log',
    );
    const withdrawals = first.filter((e) => e.type.startsWith('withdrawal.'));
    expect(withdrawals.length).toBeGreaterThanOrEqual(2);
    expect(new Set(first.map((e) => e.id)).size).toBe(first.length);
    const cursor = log.cursor;
    expect(cursor).toEqual(expect.any(String));
    // Resumed from the cursor: only later events (the log may still show older transactions' events
    // late, never again and never before the cursor), the new withdrawal's among them.
    const w = await client.createWithdrawal({ network: 'TRC20', address: payee, amount: '2', reference: 'w-log' });
    const next = await eventually(async () => {
      const got = await client.events.list({ after: cursor }).toArray();
      return got.some((e) => e.data.uuid === w.uuid) ? got : undefined;
    });
    expect(next.filter((e) => first.some((f) => f.id === e.id))).toEqual([]);
    expect(next.filter((e) => e.data.uuid === w.uuid).map((e) => e.type)).toEqual([`withdrawal.${w.status}`]);

    // Redelivery: the same bytes again, signed anew.
    const target = withdrawals[0]!;
    const before = receiver.at('/merchant').filter((d) => d.json.id === target.id).length;
    expect(await client.events.redeliver(target.id)).toEqual({ id: target.id, type: target.type, status: 'pending' });
    expect(statuses.at(-1)).toBe(202);
    const again = await eventually(async () => {
      const got = receiver.at('/merchant').filter((d) => d.json.id === target.id);
      return got.length > before ? got : undefined;
    });
    expect(again.at(-1)!.body.equals(again[0]!.body)).toBe(true);
    expect(client.webhooks.verify(again.at(-1)!.body, again.at(-1)!.headers)).toEqual(target);
    expect(await client.redeliverEvent('evt_000000000000000000000000').catch((e: unknown) => e)).toMatchObject({ status: 404, code: 'event_not_found' });

    // The test ping: delivered to the merchant URL, and verifiable like any event.
    const ping = await client.webhooks.test();
    expect(ping).toMatchObject({ delivered: true, url: receiver.url('/merchant'), status_code: 200, error: null });
    const received = receiver.at('/merchant').find((d) => d.json.id === ping.event.id)!;
    const verified = client.webhooks.verify(received.body, received.headers);
    expect(isPingEvent(verified) && verified.data.merchant_id).toBe(m.merchantId);
    expect(verified).toEqual(ping.event);
  });

  it('another merchant sees none of it (404)', async () => {
    const other = await createMerchant(stack, { name: 'Other shop' });
    const mine = await rpc<ListWithdrawalsResponse>((cb) => r.withdrawals.listWithdrawals({ merchant_id: m.merchantId, limit: 0 }, r.operator, cb));
    const otherClient = new ChainpayClient({ baseUrl: stack.baseUrl, apiKey: other.apiKey, apiSecret: other.apiSecret });
    expect(await otherClient.getWithdrawal(mine.withdrawals[0]!.uuid).catch((e: unknown) => e)).toMatchObject({ name: 'ChainpayError', status: 404, code: 'withdrawal_not_found' });
    expect(await otherClient.getBalance()).toEqual({ available: '0', held: '0', currency: 'USDT' });
    expect(await otherClient.withdrawals.list().toArray()).toEqual([]);
  });
});
