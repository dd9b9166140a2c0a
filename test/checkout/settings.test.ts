import { run } from '../../src/cli/main';
import { createMerchant, signed, rpc, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import type { Merchant } from '../../src/grpc/generated/chainpay/v1/merchants';
import type { ListNetworksResponse } from '../../src/grpc/generated/chainpay/v1/networks';

/**
 * The checkout's settings through the real CLI against a real daemon (issue 39): the merchant's
 * display name and support contact (merchant set-checkout) reach the page; bad values are refused
 * and change nothing; explorer templates are checked (networks set-explorer) and devnet shows none.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (res: Response): Promise<any> => res.json();

describe('checkout settings via the CLI', () => {
  let stack: Stack;
  let m: MerchantCredentials;

  beforeAll(async () => {
    stack = await startStack();
    m = await createMerchant(stack, { name: 'Legal Name Ltd' });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  async function chainpay(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const code = await run(argv, {
      env: { CHAINPAY_GRPC_ADDR: stack.grpcAddress, DATA_DIR: stack.dataDir },
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
    });
    return { code, stdout, stderr };
  }
  const merchant = () => rpc<Merchant>((cb) => stack.clients.merchants.getMerchant({ merchant_id: m.merchantId }, stack.operator, cb));

  it('sets the display name and support contact; refuses bad ones without changing anything; the page shows them', async () => {
    const ok = await chainpay(
      'merchant',
      'set-checkout',
      '--merchant',
      m.merchantId,
      '--display-name',
      'Tea & Co',
      '--support-url',
      'https://tea.example/help',
      '--support-email',
      'help@tea.example',
      '--json',
    );
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ display_name: 'Tea & Co', support_url: 'https://tea.example/help', support_email: 'help@tea.example' });

    for (const bad of [
      ['--support-url', 'http://tea.example/help'],
      ['--support-url', 'javascript:alert(1)'],
      ['--support-email', 'help@tea.example?cc=x@evil.example'],
      ['--display-name', 'x'.repeat(101)],
      ['--display-name', 'Tea\u202eoC'],
    ]) {
      const r = await chainpay('merchant', 'set-checkout', '--merchant', m.merchantId, ...bad);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/invalid_(support_url|support_email|display_name)/);
    }
    expect(await merchant()).toMatchObject({ display_name: 'Tea & Co', support_url: 'https://tea.example/help', support_email: 'help@tea.example', name: 'Legal Name Ltd' });

    const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '5', network: 'TRC20', order_id: 'T-77', lifetime_minutes: 5 })).body;
    await rpc((cb) => stack.clients.devnet.advanceTime({ seconds: '301' }, stack.operator, cb));
    await waitForStatus(stack, m, inv.uuid, 'expired');
    const page = await (await fetch(`${stack.baseUrl}/pay/${inv.uuid}`)).text();
    expect(page).toContain('Payment to Tea &amp; Co');
    expect(page).toContain('<code id="quote-order">T-77</code>');
    expect(page).toContain('href="https://tea.example/help"');
    expect(page).toContain('href="mailto:help@tea.example"');
    expect(page).not.toContain('Legal Name Ltd');

    // '' clears a setting: the page falls back to the merchant's name and to "where you ordered".
    expect((await chainpay('merchant', 'set-checkout', '--merchant', m.merchantId, '--display-name', '', '--support-url', '', '--support-email', '')).code).toBe(0);
    expect(await merchant()).toMatchObject({ display_name: '', support_url: '', support_email: '' });
    const cleared = await (await fetch(`${stack.baseUrl}/pay/${inv.uuid}`, { headers: { 'Accept-Language': 'es' } })).text();
    expect(cleared).toContain('Pago a Legal Name Ltd');
    expect(cleared).toContain('Contacte con Legal Name Ltd donde hizo su pedido.');
  });

  it('checks explorer templates; devnet has no default, an explicit template gives each payment its link', async () => {
    const refused = await chainpay('networks', 'set-explorer', '--network', 'TON', '--tx-url', 'http://tonviewer.example/{tx}');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('invalid_explorer_url');
    const twice = await chainpay('networks', 'set-explorer', '--network', 'TON', '--tx-url', 'https://x.example/{tx}/{tx}');
    expect(twice.code).not.toBe(0);
    expect((await chainpay('networks', 'set-explorer', '--network', 'TON', '--tx-url', 'https://testnet.tonviewer.com/transaction/{tx}')).code).toBe(0);
    expect((await chainpay('networks', 'set-explorer', '--network', 'TRC20', '--tx-url', 'none')).code).toBe(0);
    expect((await chainpay('networks', 'set-explorer', '--network', 'TRC20', '--tx-url', 'default')).code).toBe(0);
    const list = await rpc<ListNetworksResponse>((cb) => stack.clients.networks.listNetworks({ include_inactive: true }, stack.operator, cb));
    expect(list.livemode).toBe(false);
    for (const n of list.networks) expect(n.explorer_tx_url).toBe(n.code === 'TON' ? 'https://testnet.tonviewer.com/transaction/{tx}' : ''); // devnet: no default

    const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '5', network: 'TON' })).body;
    // The devnet clock was advanced 5 minutes (above): the countdown still starts at the daemon's hour, not 1:05:00.
    const fresh = await (await fetch(`${stack.baseUrl}/pay/${inv.uuid}`)).text();
    expect(/<time id="countdown"[^>]*>([^<]+)<\/time>/.exec(fresh)![1]).toMatch(/^(59:[0-5]\d|1:00:00)$/);
    await rpc((cb) => stack.clients.devnet.pay({ network: 'TON', to: inv.address, amount: inv.pay_amount, memo: inv.memo }, stack.operator, cb));
    await waitForStatus(stack, m, inv.uuid, 'confirming');
    const res = await fetch(`${stack.baseUrl}/pay/${inv.uuid}/network`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"network":"TRC20"}' });
    expect((await json(res)).error.code).toBe('network_change_not_allowed'); // money arrived: the network is fixed
    const page = await (await fetch(`${stack.baseUrl}/pay/${inv.uuid}`)).text();
    const paid = (await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body;
    expect(paid.payments).toHaveLength(1);
    expect(page).toContain(`href="https://testnet.tonviewer.com/transaction/${encodeURIComponent(paid.payments[0].tx_hash)}"`);

    // Switched off: the payment is still listed, without a link.
    expect((await chainpay('networks', 'set-explorer', '--network', 'TON', '--tx-url', 'none')).code).toBe(0);
    const off = await (await fetch(`${stack.baseUrl}/pay/${inv.uuid}`)).text();
    expect(off).toContain('id="payments"');
    expect(off).not.toContain('explorer-link');
  });
});
