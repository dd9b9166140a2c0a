import { createMerchant, eventually, rpc, waitForStatus, type MerchantCredentials, type Stack, startStack } from '../support/stack';
import { balance, createInvoice, getInvoice, mine, pay, payAndConfirm } from '../invoices/helpers';
import { caughtUp, cli, cliJson, health, query, watchActors, watcher } from './support';

describe('operator plane: watchers', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack();
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const ledgerFigures = async (): Promise<{ journals: number; entries: number; payments: number; unattributed: number }> => {
    const [row] = await query<{ journals: string; entries: string; payments: string; unattributed: string }>(
      stack,
      `select (select count(*) from journals) as journals, (select count(*) from ledger_entries) as entries,
              (select count(*) from invoice_payments) as payments, (select count(*) from unattributed_deposits) as unattributed`,
    );
    return { journals: Number(row!.journals), entries: Number(row!.entries), payments: Number(row!.payments), unattributed: Number(row!.unattributed) };
  };

  it('lists every watcher with head, cursor, lag, RPC health and watched addresses', async () => {
    await mine(stack, 'TRC20', 2);
    const w = await caughtUp(stack, 'TRC20');
    expect(w).toMatchObject({ network: 'TRC20', chain_mode: 'devnet', state: 'running', paused: false, rpc_healthy: true, lag_blocks: '0', lag_seconds: 0 });
    expect(Number(w.head)).toBeGreaterThan(0);
    expect(w.watched_addresses).toBeGreaterThan(0);
    const all = await cliJson(stack, ['watchers']);
    expect(all.watchers).toHaveLength(6);
    const human = await cli(stack, ['watchers', '--network', 'TRC20']);
    expect(human.out).toMatch(/TRC20\s+running\s+devnet/);
    expect(await health(stack, 'chainpay.watcher.TRC20')).toBe('SERVING');
  });

  it('pausing a watcher stops its progress; resuming catches up and the invoice is paid', async () => {
    const inv = await createInvoice(stack, m, { amount: '4', network: 'TON' });
    const before = await caughtUp(stack, 'TON');
    const paused = await cliJson(stack, ['watchers', 'pause', '--network', 'TON']);
    expect(paused).toMatchObject({ network: 'TON', state: 'paused', paused: true, cursor: before.cursor });
    await eventually(async () => ((await health(stack, 'chainpay.watcher.TON')) === 'NOT_SERVING' ? true : undefined), 3_000, 'TON health NOT_SERVING');
    expect(await health(stack, '')).toBe('SERVING'); // one paused network does not take the daemon out

    await pay(stack, 'TON', inv.address, inv.pay_amount, { memo: inv.memo });
    await mine(stack, 'TON', 4);
    await new Promise((r) => setTimeout(r, 300));
    const still = await watcher(stack, 'TON');
    expect(still).toMatchObject({ state: 'paused', cursor: before.cursor });
    expect(Number(still.lag_blocks)).toBeGreaterThanOrEqual(4); // the head is still read while paused
    expect(Number(still.head)).toBe(Number(before.cursor) + Number(still.lag_blocks));
    expect((await getInvoice(stack, m, inv.uuid)).status).toBe('pending');

    const resumed = await cliJson(stack, ['watchers', 'resume', '--network', 'TON']);
    expect(resumed).toMatchObject({ state: 'running', paused: false });
    await waitForStatus(stack, m, inv.uuid, 'paid');
    const after = await caughtUp(stack, 'TON');
    expect(after.cursor).toBe(still.head);
    await eventually(async () => ((await health(stack, 'chainpay.watcher.TON')) === 'SERVING' ? true : undefined), 3_000, 'TON health SERVING');

    const audit = await cliJson(stack, ['audit', '--limit', '10']);
    const actions = audit.entries.map((e: { action: string; target: string; actor: string }) => `${e.action} ${e.target} ${e.actor}`);
    expect(actions).toEqual(expect.arrayContaining(['watcher.pause watcher:TON operator:tester', 'watcher.resume watcher:TON operator:tester']));
    const pauseEntry = audit.entries.find((e: { action: string }) => e.action === 'watcher.pause');
    expect(JSON.parse(pauseEntry.before_json)).toMatchObject({ state: 'running' });
    expect(JSON.parse(pauseEntry.after_json)).toMatchObject({ state: 'paused' });
  });

  it('pause/resume: the paused flag and its audit entry commit together; a no-op pause is not audited', async () => {
    await mine(stack, 'TRC20', 1);
    await caughtUp(stack, 'TRC20');
    const audited = async (action: string): Promise<number> =>
      Number((await query<{ n: string }>(stack, `select count(*) as n from audit_log where action = ? and target = 'watcher:TRC20'`, [action]))[0]!.n);
    const flag = async (): Promise<boolean> => (await query<{ paused: boolean }>(stack, `select paused from watcher_cursors where network = 'TRC20'`))[0]!.paused;

    // The audit insert fails: nothing of the pause may be left behind (no flag, still running).
    await query(stack, `create function refuse_watcher_audit() returns trigger language plpgsql as $$ begin raise exception 'audit refused (test)'; end $$`);
    await query(stack, `create trigger refuse_watcher_audit before insert on audit_log for each row when (new.action = 'watcher.pause') execute function refuse_watcher_audit()`);
    try {
      const failed = await cli(stack, ['watchers', 'pause', '--network', 'TRC20']);
      expect(failed.code).toBe(1);
    } finally {
      await query(stack, 'drop trigger refuse_watcher_audit on audit_log');
      await query(stack, 'drop function refuse_watcher_audit()');
    }
    expect(await flag()).toBe(false);
    expect((await watcher(stack, 'TRC20')).state).toBe('running');
    expect(await audited('watcher.pause')).toBe(0);

    const paused = await cliJson(stack, ['watchers', 'pause', '--network', 'TRC20']);
    expect(paused).toMatchObject({ state: 'paused', paused: true });
    expect(await flag()).toBe(true);
    expect(await audited('watcher.pause')).toBe(1);
    // Pausing again changes nothing: same answer, no second entry.
    expect(await cliJson(stack, ['watchers', 'pause', '--network', 'TRC20'])).toMatchObject({ state: 'paused' });
    expect(await audited('watcher.pause')).toBe(1);

    expect(await cliJson(stack, ['watchers', 'resume', '--network', 'TRC20'])).toMatchObject({ state: 'running', paused: false });
    expect(await flag()).toBe(false);
    expect(await cliJson(stack, ['watchers', 'resume', '--network', 'TRC20'])).toMatchObject({ state: 'running' });
    expect(await audited('watcher.resume')).toBe(1);
    const [entry] = (await cliJson(stack, ['audit', '--limit', '5'])).entries.filter((e: { action: string; target: string }) => e.action === 'watcher.resume' && e.target === 'watcher:TRC20');
    expect(JSON.parse(entry.before_json)).toMatchObject({ state: 'paused', paused: true });
    expect(JSON.parse(entry.after_json)).toMatchObject({ state: 'running', paused: false });
    await caughtUp(stack, 'TRC20');
  });

  it('a rescan re-finds a final payment without crediting it twice', async () => {
    const inv = await createInvoice(stack, m, { amount: '6', network: 'TON' });
    const paid = await payAndConfirm(stack, m, inv, inv.pay_amount, 'paid');
    const [payment] = await query<{ block_height: string }>(stack, 'select block_height from invoice_payments where tx_hash = ?', [paid._tx]);
    const height = Number(payment!.block_height);
    await caughtUp(stack, 'TON');
    const figures = await ledgerFigures();
    const money = await balance(stack, m);

    const feed = watchActors(stack, { kind: 'watcher', network: 'TON' });
    await new Promise((r) => setTimeout(r, 100));
    const rescanned = await cliJson(stack, ['watchers', 'rescan', '--network', 'TON', '--from', String(height)]);
    expect(rescanned.network).toBe('TON');
    await caughtUp(stack, 'TON');
    await eventually(async () => (feed.events.some((e) => e.type === 'transfer' && JSON.parse(e.payload_json).tx_hash === paid._tx) ? true : undefined), 5_000, 'the transfer re-found');
    feed.close();
    expect(feed.events.find((e) => e.type === 'rescan')).toBeTruthy();
    // Scanned again from the requested height: the payment's block is in the first step (one
    // `block` per step, at the end of its range), whose transfers come before it.
    const firstBlock = feed.events.findIndex((e) => e.type === 'block');
    expect(JSON.parse(feed.events[firstBlock]!.payload_json).height).toBeGreaterThanOrEqual(height);
    expect(feed.events.findIndex((e) => e.type === 'transfer' && JSON.parse(e.payload_json).tx_hash === paid._tx)).toBeLessThan(firstBlock);

    expect(await ledgerFigures()).toEqual(figures);
    expect(await balance(stack, m)).toEqual(money);
    const after = await getInvoice(stack, m, inv.uuid);
    expect(after).toMatchObject({ status: 'paid', received_amount: inv.pay_amount });
    expect(after.payments).toHaveLength(1);
    const audit = await cliJson(stack, ['audit', '--limit', '5']);
    expect(JSON.parse(audit.entries.find((e: { action: string }) => e.action === 'watcher.rescan').after_json)).toMatchObject({ from_height: height });
  });

  it('a rescan over an unfinal payment keeps its confirmations and it is credited once when final', async () => {
    const inv = await createInvoice(stack, m, { amount: '2', network: 'TON' });
    const money = await balance(stack, m);
    const tx = await pay(stack, 'TON', inv.address, inv.pay_amount, { memo: inv.memo });
    await waitForStatus(stack, m, inv.uuid, 'confirming');
    await mine(stack, 'TON', 1);
    const two = await eventually(
      async () => {
        const body = await getInvoice(stack, m, inv.uuid);
        return body.confirmations === 2 ? body : undefined;
      },
      5_000,
      'two confirmations',
    );
    const [payment] = await query<{ block_height: string }>(stack, 'select block_height from invoice_payments where tx_hash = ?', [tx.tx_hash]);
    await cliJson(stack, ['watchers', 'rescan', '--network', 'TON', '--from', String(Number(payment!.block_height) - 1)]);
    await caughtUp(stack, 'TON');
    const during = await getInvoice(stack, m, inv.uuid);
    expect(during).toMatchObject({ status: 'confirming', confirmations: two.confirmations });
    expect(during.payments).toHaveLength(1);

    await mine(stack, 'TON', 1);
    await waitForStatus(stack, m, inv.uuid, 'paid');
    const now = await balance(stack, m);
    expect(Number(now.available) - Number(money.available)).toBeCloseTo(Number(inv.amount), 6);
    const [journals] = await query<{ n: string }>(stack, 'select count(*) as n from journals where reference like ?', [`invoice:${inv.uuid}:%`]);
    expect(Number(journals!.n)).toBe(1);
  });

  it('refuses a rescan that would skip blocks, an unknown network and a bad height', async () => {
    const w = await caughtUp(stack, 'SOLANA');
    const ahead = await cli(stack, ['watchers', 'rescan', '--network', 'SOLANA', '--from', String(Number(w.cursor) + 5)]);
    expect(ahead.code).toBe(1);
    expect(ahead.err).toMatch(/rescan_ahead_of_cursor/);
    const err = await rpc((cb) => stack.clients.operator.rescanWatcher({ network: 'SOLANA', from_height: '0' }, stack.operator, cb)).catch((e: unknown) => e);
    expect((err as { metadata: { get(k: string): unknown[] } }).metadata.get('chainpay-error-code')[0]).toBe('invalid_height');
    const unknown = await cli(stack, ['watchers', 'pause', '--network', 'DOGE']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/watcher_not_found/);
    expect((await watcher(stack, 'SOLANA')).state).toBe('running');
  });

  // Last: moves the devnet clock a day ahead.
  it('a rescan after the late-payment window closed still credits nothing and records no unattributed deposit', async () => {
    const inv = await createInvoice(stack, m, { amount: '3', network: 'TON' });
    const paid = await payAndConfirm(stack, m, inv, inv.pay_amount, 'paid');
    await rpc((cb) => stack.clients.devnet.advanceTime({ seconds: String(25 * 3600) }, stack.operator, cb));
    await eventually(async () => ((await query<{ open: boolean }>(stack, 'select open from invoices where uuid = ?', [inv.uuid]))[0]!.open ? undefined : true), 5_000, 'the actor to close');
    const [payment] = await query<{ block_height: string }>(stack, 'select block_height from invoice_payments where tx_hash = ?', [paid._tx]);
    const figures = await ledgerFigures();
    const feed = watchActors(stack, { kind: 'watcher', network: 'TON' });
    await new Promise((r) => setTimeout(r, 100));
    await cliJson(stack, ['watchers', 'rescan', '--network', 'TON', '--from', payment!.block_height]);
    await caughtUp(stack, 'TON');
    await eventually(async () => (feed.events.some((e) => e.type === 'transfer' && JSON.parse(e.payload_json).tx_hash === paid._tx) ? true : undefined), 5_000, 'the transfer re-found');
    feed.close();
    expect(await ledgerFigures()).toEqual(figures);
    expect((await cliJson(stack, ['deposits', 'unattributed', '--status', 'all'])).deposits).toEqual([]);
  });
});
