import { startStack, createMerchant, waitForStatus, type Stack, type MerchantCredentials } from '../support/stack';
import { createInvoice, watchInvoice } from './helpers';
import { run } from '../../src/cli/main';

async function cli(stack: Stack, args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(args, {
    env: { CHAINPAY_GRPC_ADDR: stack.grpcAddress, DATA_DIR: stack.dataDir },
    stdout: { write: (s: string) => void (out += s) },
    stderr: { write: (s: string) => void (err += s) },
  });
  return { code, out, err };
}

describe('WatchInvoice stream and the devnet/balance CLI', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack();
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('WatchInvoice emits the current invoice and then every change', async () => {
    const inv = await createInvoice(stack, m, { amount: '3', network: 'TON' });
    const stream = watchInvoice(stack, m.merchantId, inv.uuid);
    const updates = stream.updates;
    await new Promise((r) => setTimeout(r, 200));
    expect(updates[0]?.invoice?.status).toBe('pending');
    expect(updates[0]?.reason).toBe('snapshot');

    const paid = await cli(stack, ['devnet', 'pay', '--network', 'TON', '--to', inv.address, '--amount', inv.pay_amount, '--memo', inv.memo, '--json']);
    expect(paid.code).toBe(0);
    const tx = JSON.parse(paid.out) as { tx_hash: string };
    expect(tx.tx_hash).toMatch(/^[0-9a-f]{64}$/);
    await waitForStatus(stack, m, inv.uuid, 'confirming');
    expect((await cli(stack, ['devnet', 'mine', '--network', 'TON', '--blocks', '3', '--json'])).code).toBe(0);
    await waitForStatus(stack, m, inv.uuid, 'paid');
    await new Promise((r) => setTimeout(r, 200));
    stream.cancel();
    const statuses = updates.map((u) => u.invoice?.status);
    expect(statuses).toContain('confirming');
    expect(statuses[statuses.length - 1]).toBe('paid');
    const confirmations = updates.filter((u) => u.invoice?.status === 'confirming').map((u) => u.invoice?.confirmations);
    expect(confirmations).toEqual([...confirmations].sort((a, b) => (a ?? 0) - (b ?? 0)));
    expect(updates.find((u) => u.invoice?.status === 'confirming')?.invoice?.tx_hash).toBe(tx.tx_hash);

    const balance = await cli(stack, ['balance', '--merchant', m.merchantId, '--json']);
    expect(balance.code).toBe(0);
    expect(JSON.parse(balance.out)).toMatchObject({ available: '3', held: '0' });
  });

  it('devnet reorg and advance-time through the CLI', async () => {
    await cli(stack, ['devnet', 'mine', '--network', 'TRC20', '--blocks', '10']);
    const reorg = await cli(stack, ['devnet', 'reorg', '--network', 'TRC20', '--depth', '3', '--json']);
    expect(reorg.code).toBe(0);
    expect(JSON.parse(reorg.out)).toMatchObject({ network: 'TRC20' });
    // SOLANA has no reorgs: its devnet refuses one (the family's rule).
    const refused = await cli(stack, ['devnet', 'reorg', '--network', 'SOLANA', '--depth', '3', '--json']);
    expect(refused.code).not.toBe(0);
    expect(refused.err + refused.out).toMatch(/reorg_unsupported/);
    const t = await cli(stack, ['devnet', 'advance-time', '--seconds', '60', '--json']);
    expect(t.code).toBe(0);
    expect(Number(JSON.parse(t.out).offset_seconds)).toBeGreaterThanOrEqual(60);
    const bad = await cli(stack, ['devnet', 'pay', '--network', 'NOPE', '--to', 'x', '--amount', '1']);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/unknown_network/);
  });
});
