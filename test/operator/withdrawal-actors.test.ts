import { createMerchant, eventually, signed, type MerchantCredentials, type Stack, startStack } from '../support/stack';
import { addressOf, advance, DAY_S, fund, mine, stackRpcs, waitBroadcast, waitForWithdrawal, whitelist, WD_ENV } from '../withdrawals/support';
import { cliJson, watchActors } from './support';

describe('operator plane: withdrawal actors', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  const payee = addressOf('TRC20', 'operator-payee');
  beforeAll(async () => {
    stack = await startStack({ env: WD_ENV });
    m = await createMerchant(stack);
    const r = stackRpcs(stack);
    await fund(r, m.merchantId, '100');
    await whitelist(r, m.merchantId, 'TRC20', payee);
    await advance(r, DAY_S);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('shows a withdrawal in review, streams the approval and the payout, and shows it closed from its snapshot', async () => {
    await cliJson(stack, ['merchant', 'set-caps', '--merchant', m.merchantId, '--per-withdrawal', '10', '--daily', '40']);
    const w = (await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '20' })).body;
    expect(w.status).toBe('review');

    const listed = await cliJson(stack, ['actors', 'list', '--kind', 'withdrawal', '--status', 'review']);
    expect(listed.actors).toEqual([expect.objectContaining({ kind: 'withdrawal', id: w.uuid, status: 'review', network: 'TRC20' })]);
    const inReview = await cliJson(stack, ['actors', 'show', w.uuid]);
    expect(inReview.summary).toMatchObject({ kind: 'withdrawal', status: 'review' });
    expect(JSON.parse(inReview.state_value_json)).toBe('review');
    expect(JSON.parse(inReview.context_json)).toMatchObject({ uuid: w.uuid, status: 'review', netPayout: w.net_payout });
    expect(inReview.pending_timers).toEqual([]);

    const feed = watchActors(stack, { kind: 'withdrawal', id: w.uuid });
    await new Promise((r) => setTimeout(r, 100));
    await cliJson(stack, ['withdrawals', 'approve', w.uuid]);
    await waitBroadcast(stack.daemon.orm, w.uuid);
    const waiting = await eventually(
      async () => {
        const d = await cliJson(stack, ['actors', 'show', w.uuid]);
        return d.pending_timers.length ? d : undefined;
      },
      5_000,
      'the payout poll timer',
    );
    expect(waiting.summary.status).toBe('processing');
    expect(waiting.pending_timers[0]).toMatch(/^payout status check within \d+ ms/);
    expect(waiting.last_events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['committed']));

    await mine(stackRpcs(stack), 3);
    await waitForWithdrawal(stack, m, w.uuid, 'completed');
    await eventually(async () => (feed.events.some((e) => e.type === 'committed' && JSON.parse(e.payload_json).status === 'completed') ? true : undefined), 5_000, 'completed on the stream');
    feed.close();
    const statuses = feed.events.filter((e) => e.type === 'committed').map((e) => JSON.parse(e.payload_json).status);
    expect(statuses[0]).toBe('processing');
    expect(statuses.at(-1)).toBe('completed');
    expect(feed.events.every((e) => e.kind === 'withdrawal' && e.id === w.uuid && e.network === 'TRC20')).toBe(true);

    const closed = await cliJson(stack, ['actors', 'show', w.uuid]);
    expect(closed.summary).toMatchObject({ kind: 'withdrawal', status: 'completed' });
    expect(JSON.parse(closed.context_json)).toMatchObject({ status: 'completed' });
    expect(closed.pending_timers).toEqual([]);
    expect((await cliJson(stack, ['actors', 'list', '--kind', 'withdrawal'])).actors).toEqual([]);
  });
});
