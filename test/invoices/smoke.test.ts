import { startStack, createMerchant, signed, rpc, waitForStatus, type Stack, type MerchantCredentials } from '../support/stack';

describe('invoice smoke', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack();
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('create, pay on devnet, confirm, paid', async () => {
    const res = await signed(stack, m, 'POST', '/v1/invoices', { amount: '10', network: 'TRC20', order_id: 'o-1', metadata: { a: 1 } });
    expect(res.status).toBe(201);
    const inv = res.body;
    expect(inv.status).toBe('pending');
    const pay = await rpc<{ tx_hash: string }>((cb) => stack.clients.devnet.pay({ network: 'TRC20', to: inv.address, amount: inv.pay_amount }, stack.operator, cb));
    expect(pay.tx_hash).toBeTruthy();
    let got = { body: await waitForStatus(stack, m, inv.uuid, 'confirming') };
    expect(got.body.tx_hash).toBe(pay.tx_hash);
    await rpc((cb) => stack.clients.devnet.mine({ network: 'TRC20', blocks: inv.required_confirmations }, stack.operator, cb));
    got = { body: await waitForStatus(stack, m, inv.uuid, 'paid') };
    expect(got.body.paid_at).not.toBeNull();
    const bal = await signed(stack, m, 'GET', '/v1/balance');
    expect(bal.body.available).toBe('10');
  });
});
