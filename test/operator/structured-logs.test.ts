import type { DevnetPayResponse } from '../../src/grpc/generated/chainpay/v1/devnet';
import { captureLogger, type LogLine } from '../webhooks/support';
import type { CreateWithdrawalResponse } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { createMerchant, eventually, rpc, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { addressOf, advance, DAY_S, fund, stackRpcs, waitBroadcast, waitForWithdrawal, whitelist, WD_ENV } from '../withdrawals/support';

/** The operator's promise (docs/operations.md, Logs): log lines carry the ids they are about. */
describe('structured logs of state changes', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  let lines: LogLine[];
  beforeAll(async () => {
    const captured = captureLogger();
    lines = captured.lines;
    stack = await startStack({ logger: captured.logger, env: WD_ENV });
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const pay = (network: string, to: string, amount: string, memo?: string): Promise<DevnetPayResponse> =>
    rpc<DevnetPayResponse>((cb) => stack.clients.devnet.pay({ network, to, amount, ...(memo ? { memo } : {}) }, stack.operator, cb));
  const mine = (network: string, blocks: number): Promise<unknown> => rpc((cb) => stack.clients.devnet.mine({ network, blocks }, stack.operator, cb));
  const createInvoice = async (body: Record<string, unknown>): Promise<any> => {
    // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await signed(stack, m, 'POST', '/v1/invoices', body);
    expect(res.status).toBe(201);
    return res.body;
  };

  it('pending -> confirming -> paid: one info line per status change with invoice, merchant, network and tx ids', async () => {
    const inv = await createInvoice({ amount: '10', network: 'TRC20' });
    expect(inv.required_confirmations).toBeGreaterThan(1); // several confirmations, still one line per change
    const tx = await pay('TRC20', inv.address, inv.pay_amount);
    await waitForStatus(stack, m, inv.uuid, 'confirming');
    for (let i = 0; i < inv.required_confirmations; i++) await mine('TRC20', 1);
    await waitForStatus(stack, m, inv.uuid, 'paid');

    const changes = await eventually(
      async () => {
        const found = lines.filter((l) => l.msg === 'invoice status changed' && l.invoiceUuid === inv.uuid);
        return found.length >= 2 ? found : undefined;
      },
      5_000,
      'two status change lines',
    );
    const ids = { level: 30, invoiceUuid: inv.uuid, merchantId: m.merchantId, network: 'TRC20', txHash: tx.tx_hash };
    expect(changes).toEqual([
      expect.objectContaining({ ...ids, previousStatus: 'pending', status: 'confirming' }),
      expect.objectContaining({ ...ids, previousStatus: 'confirming', status: 'paid', receivedAmount: inv.pay_amount, credited: inv.pay_amount }),
    ]);
  });

  it('a withdrawal processing -> completed: one info line with withdrawal, merchant, network and tx ids', async () => {
    const r = stackRpcs(stack);
    const payee = addressOf('TRC20', 'structured-logs-payee');
    await fund(r, m.merchantId, '20');
    await whitelist(r, m.merchantId, 'TRC20', payee);
    await advance(r, DAY_S); // the whitelist cooldown
    const created = await rpc<CreateWithdrawalResponse>((cb) => stack.clients.withdrawals.createWithdrawal({ network: 'TRC20', address: payee, amount: '5' }, r.forMerchant(m.merchantId), cb));
    const w = created.withdrawal!;
    await waitBroadcast(stack.daemon.orm, w.uuid);
    await mine('TRC20', 3); // TRC20_CONFIRMATIONS=3 (WD_ENV)
    const done = await waitForWithdrawal(stack, m, w.uuid, 'completed');
    const changes = await eventually(
      async () => {
        const found = lines.filter((l) => l.msg === 'withdrawal status changed' && l.withdrawalUuid === w.uuid);
        return found.length >= 1 ? found : undefined;
      },
      5_000,
      'the withdrawal status change line',
    );
    expect(changes).toEqual([
      expect.objectContaining({ level: 30, withdrawalUuid: w.uuid, merchantId: m.merchantId, network: 'TRC20', previousStatus: 'processing', status: 'completed', txHash: done.tx_hash }),
    ]);
  });

  it("the gateway's request id reaches the daemon's lines of that call; invoice created names the order_id", async () => {
    const made = await signed(stack, m, 'POST', '/v1/invoices', { amount: '4', order_id: 'request-id-order' });
    expect(made.status).toBe(201);
    const createId = made.headers.get('x-request-id')!;
    expect(createId).toMatch(/^[0-9a-f-]{36}$/);
    const created = await eventually(async () => lines.find((l) => l.msg === 'invoice created' && l.invoiceUuid === made.body.uuid), 5_000, 'the invoice created line');
    expect(created).toMatchObject({ level: 30, requestId: createId, orderId: 'request-id-order', merchantId: m.merchantId, amount: '4' });

    const chosen = await signed(stack, m, 'POST', `/v1/invoices/${made.body.uuid}/network`, { network: 'TON' });
    expect(chosen.status).toBe(200);
    const chooseId = chosen.headers.get('x-request-id')!;
    expect(chooseId).not.toBe(createId);
    const set = await eventually(async () => lines.find((l) => l.msg === 'invoice network set' && l.invoiceUuid === made.body.uuid), 5_000, 'the network set line');
    expect(set).toMatchObject({ requestId: chooseId, network: 'TON' });

    const r = stackRpcs(stack);
    const payee = addressOf('TRC20', 'request-id-payee');
    await fund(r, m.merchantId, '20');
    await whitelist(r, m.merchantId, 'TRC20', payee);
    await advance(r, DAY_S);
    const paid = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '5', reference: 'request-id-ref' });
    expect(paid.status).toBe(201);
    const wd = await eventually(async () => lines.find((l) => l.msg === 'withdrawal created' && l.withdrawalUuid === paid.body.uuid), 5_000, 'the withdrawal created line');
    expect(wd).toMatchObject({ requestId: paid.headers.get('x-request-id'), reference: 'request-id-ref', merchantId: m.merchantId });
  });

  it('an unattributed deposit line carries its deposit id, network, tx hash, address and reason', async () => {
    const shared = (await createInvoice({ amount: '1', network: 'TON' })).address as string;
    const tx = await pay('TON', shared, '3', 'no-such-invoice-memo');
    const line = await eventually(async () => lines.find((l) => l.msg === 'unattributed deposit recorded' && l.txHash === tx.tx_hash), 5_000, 'the unattributed deposit line');
    const rows = await stack.daemon.orm.em.fork().execute<{ id: string; address: string }[]>('select id, address from unattributed_deposits where tx_hash = ?', [tx.tx_hash]);
    expect(rows).toHaveLength(1);
    // The address as the watcher saw it on chain (TON: raw form), the row's.
    expect(line).toMatchObject({ depositId: rows[0]!.id, network: 'TON', txHash: tx.tx_hash, address: rows[0]!.address, memo: 'no-such-invoice-memo', reason: 'unknown_memo' });
  });
});
