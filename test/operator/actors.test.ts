import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { OperatorServiceService } from '../../src/grpc/generated/chainpay/v1/operator';
import { createMerchant, eventually, waitForStatus, type MerchantCredentials, type Stack, startStack } from '../support/stack';
import { createInvoice, mine, pay } from '../invoices/helpers';
import { cli, cliJson, watchActors } from './support';

describe('operator plane: actors', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack();
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('refuses every OperatorService call without the operator token, and with a wrong one', async () => {
    const wrong = new grpc.Metadata();
    wrong.set('authorization', 'Bearer not-the-operator-token');
    const client = stack.clients.operator as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const [method, def] of Object.entries(OperatorServiceService)) {
      const empty = def.requestDeserialize(Buffer.alloc(0)); // the request message with its defaults
      for (const [md, code] of [
        [new grpc.Metadata(), 'missing_operator_token'],
        [wrong, 'invalid_operator_token'],
      ] as const) {
        const err = await new Promise<grpc.ServiceError>((resolve) => {
          if (def.responseStream) {
            const call = client[method]!.call(stack.clients.operator, empty, md) as grpc.ClientReadableStream<unknown>;
            call.on('data', () => undefined);
            call.on('error', resolve);
          } else {
            client[method]!.call(stack.clients.operator, empty, md, (e: grpc.ServiceError) => resolve(e));
          }
        });
        expect({ method, status: err?.code }).toEqual({ method, status: grpc.status.UNAUTHENTICATED });
        expect(err.metadata.get('chainpay-error-code')[0]).toBe(code);
      }
    }
    const denied = await cli(stack, ['actors', 'list'], { env: { CHAINPAY_OPERATOR_TOKEN: 'not-the-operator-token-at-all' } });
    expect(denied.code).toBe(1);
    expect(denied.err).toMatch(/invalid_operator_token/);
    // Where the refused token came from, and what fixes it.
    expect(denied.err).toContain(
      "the daemon refused the operator token from CHAINPAY_OPERATOR_TOKEN; set CHAINPAY_OPERATOR_TOKEN to the daemon's operator token, or DATA_DIR to the daemon's data directory",
    );
  });

  it('the CLI without a token names where it looked and which variables fix it', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-no-token-'));
    const missing = await cli(stack, ['actors', 'list'], { env: { DATA_DIR: empty } });
    expect(missing.code).toBe(1);
    expect(missing.err).toBe(
      `error: missing_operator_token: operator token required: no operator token: CHAINPAY_OPERATOR_TOKEN and OPERATOR_TOKEN are not set and ${path.join(empty, 'operator-token')} does not exist; ` +
        "set CHAINPAY_OPERATOR_TOKEN to the daemon's operator token, or DATA_DIR to the daemon's data directory (the daemon writes operator-token there on first start)\n",
    );
    // A merchant-scoped call without credentials says the same (the daemon's code differs).
    const invoices = await cli(stack, ['invoices', 'list', '--merchant', m.merchantId], { env: { DATA_DIR: empty } });
    expect(invoices.code).toBe(1);
    expect(invoices.err).toMatch(/^error: missing_credentials: .*: no operator token: .* does not exist; set CHAINPAY_OPERATOR_TOKEN/);
    // The file the daemon wrote, found through DATA_DIR: works.
    const ok = await cli(stack, ['actors', 'list', '--json'], { env: { DATA_DIR: stack.dataDir } });
    expect(ok.code).toBe(0);
  });

  it('`chainpay actors show` on an invoice mid-confirmation shows its confirming state and confirmations; the stream shows the payment arriving', async () => {
    const inv = await createInvoice(stack, m, { amount: '7', network: 'TON' });
    const byId = watchActors(stack, { kind: 'invoice', id: inv.uuid });
    const watcherFeed = watchActors(stack, { kind: 'watcher', network: 'TON' });
    const cliFeed = new AbortController();
    let cliOut = '';
    const cliWatch = cli(stack, ['actors', 'watch', '--id', inv.uuid, '--json'], { signal: cliFeed.signal, onOut: (o) => (cliOut = o) });
    await new Promise((r) => setTimeout(r, 200)); // streams subscribed

    const tx = await pay(stack, 'TON', inv.address, inv.pay_amount, { memo: inv.memo });
    await waitForStatus(stack, m, inv.uuid, 'confirming');
    await mine(stack, 'TON', 1);
    await eventually(
      async () =>
        (await cliJson(stack, ['actors', 'show', inv.uuid])).summary.status === 'confirming' && JSON.parse((await cliJson(stack, ['actors', 'show', inv.uuid])).context_json).confirmations === 2
          ? true
          : undefined,
      5_000,
      'two confirmations',
    );

    const shown = await cliJson(stack, ['actors', 'show', inv.uuid]);
    expect(shown.summary).toMatchObject({ kind: 'invoice', id: inv.uuid, status: 'confirming', network: 'TON' });
    // Open states have substates: `running`, or `awaitingChain` once past expires_at.
    expect(JSON.parse(shown.state_value_json)).toEqual({ confirming: 'running' });
    const context = JSON.parse(shown.context_json);
    expect(context).toMatchObject({ status: 'confirming', confirmations: 2, requiredConfirmations: 3, receivedAmount: inv.pay_amount });
    expect(context.payments).toEqual([expect.objectContaining({ txHash: tx.tx_hash, confirmations: 2, state: 'confirming' })]);
    expect(shown.pending_timers).toEqual([expect.stringMatching(new RegExp(`^expiry at ${inv.expires_at.replace(/[.]/g, '\\.')}`))]);
    expect(shown.last_events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['TRANSFER_SEEN', 'CONFIRMATIONS', 'committed']));
    expect(Date.parse(shown.persisted_at)).toBeGreaterThan(Date.parse(inv.created_at) - 1);

    const human = await cli(stack, ['actors', 'show', inv.uuid]);
    expect(human.code).toBe(0);
    expect(human.out).toMatch(/status\s+confirming/);
    expect(human.out).toMatch(/"confirmations": 2/);
    expect(human.out).toMatch(/TRANSFER_SEEN/);

    // The stream: the payment arriving, then the committed change to confirming.
    await eventually(async () => (byId.events.some((e) => e.type === 'CONFIRMATIONS') ? true : undefined), 5_000, 'stream events');
    const seen = byId.events.find((e) => e.type === 'TRANSFER_SEEN')!;
    expect(seen).toMatchObject({ kind: 'invoice', id: inv.uuid, network: 'TON' });
    expect(JSON.parse(seen.payload_json).payment).toMatchObject({ txHash: tx.tx_hash, amount: inv.pay_amount });
    const committed = byId.events.filter((e) => e.type === 'committed').map((e) => JSON.parse(e.payload_json));
    expect(committed[0]).toMatchObject({ reason: 'TRANSFER_SEEN', status: 'confirming', previous_status: 'pending' });
    expect(byId.events.every((e) => e.id === inv.uuid)).toBe(true);
    // The TON watcher reported the transfer it observed, and only TON.
    const observed = watcherFeed.events.find((e) => e.type === 'transfer');
    expect(JSON.parse(observed!.payload_json)).toMatchObject({ tx_hash: tx.tx_hash, memo: inv.memo });
    expect(watcherFeed.events.every((e) => e.network === 'TON' && e.kind === 'watcher')).toBe(true);
    expect(watcherFeed.events.map((e) => e.type)).toEqual(expect.arrayContaining(['block', 'transfer', 'committed']));
    byId.close();
    watcherFeed.close();

    // `chainpay actors watch --json`: one JSON line per event, until interrupted.
    await eventually(async () => (cliOut.includes('"CONFIRMATIONS"') ? true : undefined), 5_000, 'cli watch output');
    cliFeed.abort();
    expect(await cliWatch).toMatchObject({ code: 0 });
    const lines = cliOut
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(expect.arrayContaining(['TRANSFER_SEEN', 'committed', 'CONFIRMATIONS']));

    // Paid: the actor stays alive for the late-payment window; the timer says so.
    await mine(stack, 'TON', 1);
    await waitForStatus(stack, m, inv.uuid, 'paid');
    const paid = await cliJson(stack, ['actors', 'show', inv.uuid]);
    expect(paid.summary.status).toBe('paid');
    expect(paid.pending_timers).toEqual([expect.stringMatching(/^late_window_end at /)]);
  });

  it('lists actors by kind and status, shows a watcher, and refuses unknown ids', async () => {
    const inv = await createInvoice(stack, m, { amount: '3', network: 'SOLANA' });
    const pending = await cliJson(stack, ['actors', 'list', '--kind', 'invoice', '--status', 'pending']);
    expect(pending.actors).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'invoice', id: inv.uuid, status: 'pending', network: 'SOLANA' })]));
    expect(pending.actors.every((a: { status: string }) => a.status === 'pending')).toBe(true);
    const confirming = await cliJson(stack, ['actors', 'list', '--kind', 'invoice', '--status', 'confirming']);
    expect(confirming.actors.some((a: { id: string }) => a.id === inv.uuid)).toBe(false);

    const watchers = await cliJson(stack, ['actors', 'list', '--kind', 'watcher']);
    expect(watchers.actors.map((a: { id: string }) => a.id).sort()).toEqual(['ARBITRUM', 'BEP20', 'POLYGON', 'SOLANA', 'TON', 'TRC20']);
    expect(watchers.actors.every((a: { status: string }) => a.status === 'running')).toBe(true);
    const all = await cliJson(stack, ['actors', 'list']);
    expect(new Set(all.actors.map((a: { kind: string }) => a.kind))).toEqual(new Set(['invoice', 'watcher']));

    const w = await cliJson(stack, ['actors', 'show', 'ton']);
    expect(w.summary).toMatchObject({ kind: 'watcher', id: 'TON', status: 'running', network: 'TON' });
    expect(JSON.parse(w.context_json)).toMatchObject({ network: 'TON', state: 'running', mode: 'devnet' });
    expect(w.persisted_at).toBeTruthy();

    const unknown = await cli(stack, ['actors', 'show', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/actor_not_found/);
    const badKind = await cli(stack, ['actors', 'list', '--kind', 'robot']);
    expect(badKind.code).toBe(2);
    expect(stack.daemon.metricsPort).toBeNull(); // METRICS_PORT unset: no metrics server
  });
});
