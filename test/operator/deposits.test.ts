import * as grpc from '@grpc/grpc-js';
import type { UnattributedDeposit } from '../../src/grpc/generated/chainpay/v1/operator';
import { createMerchant, eventually, rpc, waitForStatus, type MerchantCredentials, type Stack, startStack } from '../support/stack';
import { balance, createInvoice, getInvoice, mine, pay } from '../invoices/helpers';
import { cli, cliJson, query } from './support';

describe('operator plane: unattributed deposits', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack();
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** A TON transfer to the shared address with a memo no invoice has: recorded, never lost. */
  async function strayDeposit(amount: string, memo: string): Promise<UnattributedDeposit> {
    const shared = (await createInvoice(stack, m, { amount: '1', network: 'TON' })).address as string;
    const tx = await pay(stack, 'TON', shared, amount, { memo });
    return eventually(
      async () => {
        const res = await cliJson<{ deposits: UnattributedDeposit[] }>(stack, ['deposits', 'unattributed']);
        return res.deposits.find((d) => d.tx_hash === tx.tx_hash);
      },
      5_000,
      'the unattributed deposit',
    );
  }

  it('attributing an unattributed deposit credits the invoice once; a second attempt is refused', async () => {
    const inv = await createInvoice(stack, m, { amount: '9', network: 'TON' });
    const money = await balance(stack, m);
    const deposit = await strayDeposit(inv.pay_amount, 'not-an-invoice-memo');
    expect(deposit).toMatchObject({ network: 'TON', memo: 'not-an-invoice-memo', amount: inv.pay_amount, status: 'open', reason: 'unknown_memo' });
    expect(deposit.invoice_uuid).toBeUndefined();

    const human = await cli(stack, ['deposits', 'unattributed']);
    expect(human.out).toContain(deposit.id);

    const attributed = await cliJson(stack, ['deposits', 'attribute', deposit.id, '--invoice', inv.uuid]);
    expect(attributed).toMatchObject({ id: deposit.id, status: 'attributed', invoice_uuid: inv.uuid });
    // One confirmation so far: the invoice confirms it like any payment (the watcher counts on).
    const confirming = await waitForStatus(stack, m, inv.uuid, 'confirming');
    expect(confirming.payments).toEqual([expect.objectContaining({ tx_hash: deposit.tx_hash, amount: inv.pay_amount })]);
    await mine(stack, 'TON', 3);
    await waitForStatus(stack, m, inv.uuid, 'paid');
    const credited = await balance(stack, m);
    expect(Number(credited.available) - Number(money.available)).toBeCloseTo(9, 6);

    const again = await cli(stack, ['deposits', 'attribute', deposit.id, '--invoice', inv.uuid]);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/already_attributed/);
    const other = await createInvoice(stack, m, { amount: '9', network: 'TON' });
    const elsewhere = await rpc((cb) => stack.clients.operator.attributeDeposit({ deposit_id: deposit.id, invoice_uuid: other.uuid }, stack.operator, cb)).catch((e: grpc.ServiceError) => e);
    expect((elsewhere as grpc.ServiceError).code).toBe(grpc.status.ABORTED); // HTTP 409
    expect((elsewhere as grpc.ServiceError).metadata.get('chainpay-error-code')[0]).toBe('already_attributed');

    expect(await balance(stack, m)).toEqual(credited);
    expect((await getInvoice(stack, m, other.uuid)).status).toBe('pending');
    const [row] = await query<{ n: string }>(stack, 'select count(*) as n from journals where reference like ?', [`invoice:${inv.uuid}:%`]);
    expect(Number(row!.n)).toBe(1);
    const listed = await cliJson(stack, ['deposits', 'unattributed', '--status', 'attributed']);
    expect(listed.deposits).toEqual([expect.objectContaining({ id: deposit.id, invoice_uuid: inv.uuid, status: 'attributed' })]);
    expect((await cliJson(stack, ['deposits', 'unattributed'])).deposits.some((d: UnattributedDeposit) => d.id === deposit.id)).toBe(false);

    const audit = await cliJson(stack, ['audit']);
    const entry = audit.entries.find((e: { action: string; target: string }) => e.action === 'deposit.attribute' && e.target === `deposit:${deposit.id}`);
    expect(entry).toMatchObject({ actor: 'operator:tester' }); // the CLI names who acts (CHAINPAY_OPERATOR_NAME)
    expect(JSON.parse(entry.after_json)).toMatchObject({ invoice_uuid: inv.uuid, tx_hash: deposit.tx_hash, amount: inv.pay_amount });
    expect(Date.parse(entry.at)).toBeGreaterThan(0);
    const [resolved] = await query<{ resolved_by: string; resolved_at: Date }>(stack, 'select resolved_by, resolved_at from unattributed_deposits where id = ?', [deposit.id]);
    expect(resolved).toMatchObject({ resolved_by: 'operator:tester' });
  });

  it('two racing attributions of one deposit: exactly one credits; the audit names the operator', async () => {
    const a = await createInvoice(stack, m, { amount: '5', network: 'TON' });
    const b = await createInvoice(stack, m, { amount: '5', network: 'TON' });
    await mine(stack, 'TON', 3);
    const deposit = await strayDeposit(a.pay_amount, 'race-memo');
    await mine(stack, 'TON', 3); // already final when attributed: paid at once
    const named = (name: string): grpc.Metadata => {
      const md = stack.operator.clone();
      md.set('x-operator-name', name);
      return md;
    };
    const results = await Promise.allSettled([
      rpc((cb) => stack.clients.operator.attributeDeposit({ deposit_id: deposit.id, invoice_uuid: a.uuid }, named('alice'), cb)),
      rpc((cb) => stack.clients.operator.attributeDeposit({ deposit_id: deposit.id, invoice_uuid: b.uuid }, named('bob'), cb)),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((refused.reason as grpc.ServiceError).metadata.get('chainpay-error-code')[0]).toBe('already_attributed');
    const winner = results[0]!.status === 'fulfilled' ? a : b;
    const loser = winner === a ? b : a;
    await waitForStatus(stack, m, winner.uuid, 'paid');
    const lost = await getInvoice(stack, m, loser.uuid);
    expect(lost).toMatchObject({ status: 'pending', received_amount: '0', payments: [] });
    const [payments] = await query<{ n: string }>(stack, 'select count(*) as n from invoice_payments where tx_hash = ?', [deposit.tx_hash]);
    expect(Number(payments!.n)).toBe(1);
    const audit = await cliJson(stack, ['audit']);
    const entries = audit.entries.filter((e: { target: string }) => e.target === `deposit:${deposit.id}`);
    expect(entries).toHaveLength(1);
    expect(entries[0].actor).toBe(winner === a ? 'operator:alice' : 'operator:bob');
  });

  it('refuses unknown deposits and invoices, another network, and missing fields', async () => {
    const deposit = await strayDeposit('1.5', 'refusals-memo');
    const sol = await createInvoice(stack, m, { amount: '2', network: 'SOLANA' });
    const code = async (deposit_id: string, invoice_uuid: string): Promise<unknown> => {
      const e = await rpc((cb) => stack.clients.operator.attributeDeposit({ deposit_id, invoice_uuid }, stack.operator, cb)).catch((err: grpc.ServiceError) => err);
      return (e as grpc.ServiceError).metadata.get('chainpay-error-code')[0];
    };
    expect(await code('00000000-0000-4000-8000-000000000000', sol.uuid)).toBe('deposit_not_found');
    expect(await code(deposit.id, '00000000-0000-4000-8000-000000000000')).toBe('invoice_not_found');
    expect(await code(deposit.id, sol.uuid)).toBe('network_mismatch');
    expect(await code('', sol.uuid)).toBe('missing_field');
    expect((await cliJson(stack, ['deposits', 'unattributed'])).deposits.find((d: UnattributedDeposit) => d.id === deposit.id)).toMatchObject({ status: 'open' });
  });
});
