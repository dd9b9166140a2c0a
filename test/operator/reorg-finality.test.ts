import { createMerchant, eventually, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { createInvoice, getInvoice, mine, pay, reorg } from '../invoices/helpers';
import { caughtUp, cli, cliJson, query, watcher } from './support';

/**
 * Devnet, daemon level: a block with required_confirmations confirmations is final. A reorg that
 * would remove one is refused, and a reorg that reaches a payment already credited (its invoice
 * needed fewer confirmations than the chain's window) halts the watcher: never a silent credit.
 */
describe('reorgs and finality on devnet (required confirmations = final)', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    // TRC20 at 3 confirmations (20 by default): its devnet window, and so its deepest reorg, follows.
    stack = await startStack({ env: { TRC20_CONFIRMATIONS: '3' } });
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const setConfirmations = (network: string, n: number) => cliJson(stack, ['networks', 'set-fee', '--network', network, '--confirmations', String(n)]);
  const paymentState = async (uuid: string) => (await query<{ state: string }>(stack, 'select state from invoice_payments where invoice_uuid = ?', [uuid])).map((r) => r.state);

  it('TRC20 (3 confirmations): a reorg of depth 3 that would remove a credited payment is refused; depth 2 rolls back', async () => {
    await mine(stack, 'TRC20', 5);
    const paid = await createInvoice(stack, m, { amount: '4', network: 'TRC20' });
    expect(paid.required_confirmations).toBe(3);
    await pay(stack, 'TRC20', paid.address, paid.pay_amount);
    await waitForStatus(stack, m, paid.uuid, 'confirming');
    await mine(stack, 'TRC20', 2); // the payment's block has 3 confirmations: credited
    await waitForStatus(stack, m, paid.uuid, 'paid');
    const before = await caughtUp(stack, 'TRC20');

    const refused = await cli(stack, ['devnet', 'reorg', '--network', 'TRC20', '--depth', '3']);
    expect(refused.code).not.toBe(0);
    expect(refused.err + refused.out).toMatch(/reorg_too_deep/);
    expect(refused.err + refused.out).toMatch(/3 confirmations is final.*deepest allowed reorg is 2/);
    expect((await watcher(stack, 'TRC20')).head).toBe(before.head); // nothing happened to the chain
    expect(await paymentState(paid.uuid)).toEqual(['confirmed']);

    const rolled = await createInvoice(stack, m, { amount: '5', network: 'TRC20' });
    await pay(stack, 'TRC20', rolled.address, rolled.pay_amount);
    await mine(stack, 'TRC20', 1); // 2 confirmations: not final yet
    await eventually(async () => ((await getInvoice(stack, m, rolled.uuid)).confirmations === 2 ? true : undefined));
    await reorg(stack, 'TRC20', 2);
    const back = await waitForStatus(stack, m, rolled.uuid, 'pending');
    expect(back.received_amount).toBe('0');
    expect(back.payments).toEqual([expect.objectContaining({ status: 'reverted' })]);
    await caughtUp(stack, 'TRC20');
    expect((await watcher(stack, 'TRC20')).state).toBe('running');
    expect((await getInvoice(stack, m, paid.uuid)).status).toBe('paid');
  });

  it('TON and SOLANA never reorganise: their devnet refuses a reorg (reorg_unsupported) and the chain is unchanged', async () => {
    for (const network of ['TON', 'SOLANA']) {
      await mine(stack, network, 3);
      const before = await caughtUp(stack, network);
      const refused = await cli(stack, ['devnet', 'reorg', '--network', network, '--depth', '1']);
      expect(refused.code).not.toBe(0);
      expect(refused.err + refused.out).toMatch(/reorg_unsupported/);
      expect((await watcher(stack, network)).head).toBe(before.head);
      expect((await watcher(stack, network)).state).toBe('running');
    }
  });

  it("the watcher follows each payment to its invoice's own required confirmations, not the network's current value", async () => {
    await setConfirmations('BEP20', 4);
    const inv = await createInvoice(stack, m, { amount: '3', network: 'BEP20' });
    expect(inv.required_confirmations).toBe(4);
    await setConfirmations('BEP20', 2); // lowered live: this invoice still needs 4
    await pay(stack, 'BEP20', inv.address, inv.pay_amount);
    await waitForStatus(stack, m, inv.uuid, 'confirming');
    await mine(stack, 'BEP20', 1);
    await eventually(async () => ((await getInvoice(stack, m, inv.uuid)).confirmations === 2 ? true : undefined));
    expect((await getInvoice(stack, m, inv.uuid)).status).toBe('confirming');
    await mine(stack, 'BEP20', 2); // 4 confirmations: the watcher kept counting past the network's 2
    const paid = await waitForStatus(stack, m, inv.uuid, 'paid');
    expect(paid.confirmations).toBe(4);
  });

  it('a reorg inside the chain window that reaches a payment credited with fewer confirmations halts the watcher (reorg_beyond_finality)', async () => {
    await mine(stack, 'ARBITRUM', 5);
    const fork = Number((await caughtUp(stack, 'ARBITRUM')).cursor);
    const waiting = await createInvoice(stack, m, { amount: '2', network: 'ARBITRUM' }); // needs 20
    await setConfirmations('ARBITRUM', 1); // devnet's window stays 20 (ARBITRUM_CONFIRMATIONS at start)
    const inv = await createInvoice(stack, m, { amount: '6', network: 'ARBITRUM' });
    expect(inv.required_confirmations).toBe(1);
    await pay(stack, 'ARBITRUM', inv.address, inv.pay_amount);
    await waitForStatus(stack, m, inv.uuid, 'paid');
    await pay(stack, 'ARBITRUM', waiting.address, waiting.pay_amount);
    await waitForStatus(stack, m, waiting.uuid, 'confirming');
    const before = await caughtUp(stack, 'ARBITRUM');

    await reorg(stack, 'ARBITRUM', 2); // the devnet allows it (window 20); the credited transfer vanishes
    const halted = await eventually(
      async () => {
        const w = await watcher(stack, 'ARBITRUM');
        return w.state === 'halted' ? w : undefined;
      },
      10_000,
      'the ARBITRUM watcher to halt',
    );
    expect(halted.last_error).toMatch(/reorg deeper than finality .*credited payment/);
    expect(halted.cursor).toBe(before.cursor); // nothing of the new branch was applied
    // The credit is not silently retracted or kept as if nothing happened: the operator decides.
    expect(await paymentState(inv.uuid)).toEqual(['confirmed']);
    expect((await getInvoice(stack, m, inv.uuid)).status).toBe('paid');
    await new Promise((r) => setTimeout(r, 500));
    expect((await watcher(stack, 'ARBITRUM')).state).toBe('halted');

    // The operator settles the credited payment by hand and rescans the new branch from the fork:
    // the unfinal transfer that vanished with it is not found again and is reverted, never credited.
    const rescanned = await cliJson(stack, ['watchers', 'rescan', '--network', 'ARBITRUM', '--from', String(fork + 1)]);
    expect(rescanned.state).toBe('running');
    const back = await waitForStatus(stack, m, waiting.uuid, 'pending');
    expect(back).toMatchObject({ received_amount: '0', payments: [expect.objectContaining({ status: 'reverted' })] });
    await mine(stack, 'ARBITRUM', 25);
    await caughtUp(stack, 'ARBITRUM');
    expect(await getInvoice(stack, m, waiting.uuid)).toMatchObject({ status: 'pending', received_amount: '0' });
    expect(await paymentState(waiting.uuid)).toEqual(['reverted']);
  });
});
