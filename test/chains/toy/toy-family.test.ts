import Decimal from 'decimal.js';
import { ConfigError, loadConfig } from '../../../src/config/config';
import { refuseUnrunnableLive } from '../../../src/live-networks';
import { expectLedgerExact } from '../../withdrawals/support';
import { createInvoice, getInvoice, mine, pay, type Json } from '../../invoices/helpers';
import { caughtUp, query } from '../../operator/support';
import { createMerchant, rpc, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../../support/stack';
import type { ListNetworksResponse } from '../../../src/grpc/generated/chainpay/v1/networks';
import { TEST_FAMILIES } from '../families';
import { ToyCodec } from './codec';

jest.setTimeout(120_000);

const TOY_ADDRESS = /^TOY[0-9A-F]{40}$/;
const MNEMONIC = 'test test test test test test test test test test test junk';

/**
 * issue 33: a family is one folder plus one registry entry. The toy family (test/chains/toy/)
 * is registered from the test tree only (test/chains/families.ts) and runs POLYGON in the EVM
 * family's place; nothing in src/ names it.
 */
describe('a family registered only in the test tree', () => {
  describe('its configuration is its own', () => {
    it('reads its own variable, validated and named in the refusal; the EVM variables mean nothing for its network', () => {
      const devnet = loadConfig({ POLYGON_RPC_URL: 'http://127.0.0.1:8545', POLYGON_CHAIN_ID: 'not read' }, { families: TEST_FAMILIES });
      expect(devnet.CHAIN_MODE).toBe('devnet');
      expect(devnet.networks.POLYGON.live).toBeNull();
      // The other EVM networks are still the EVM family's.
      expect(() => loadConfig({ BEP20_CHAIN_ID: 'x' }, { families: TEST_FAMILIES })).toThrow(/^invalid configuration: BEP20_CHAIN_ID: /);

      expect(() => loadConfig({ POLYGON_TOY_NODE: 'nope' }, { families: TEST_FAMILIES })).toThrow(ConfigError);
      expect(() => loadConfig({ POLYGON_TOY_NODE: 'nope' }, { families: TEST_FAMILIES })).toThrow(/^invalid configuration: POLYGON_TOY_NODE: /);
      // Without the toy family nobody reads it.
      expect(loadConfig({ POLYGON_TOY_NODE: 'nope' }).networks.POLYGON.live).toBeNull();
    });

    it('its variable makes the network live, and without a live adapter the daemon refuses to start, naming it (exit 78)', () => {
      const live = loadConfig({ POLYGON_TOY_NODE: 'http://127.0.0.1:9' }, { families: TEST_FAMILIES });
      expect(live).toMatchObject({ CHAIN_MODE: 'live', chainModeFrom: 'POLYGON_TOY_NODE' });
      expect(live.networks.POLYGON.live).toEqual({ from: 'POLYGON_TOY_NODE', options: { url: 'http://127.0.0.1:9' } });
      expect(() => refuseUnrunnableLive(live)).toThrow(ConfigError);
      expect(() => refuseUnrunnableLive(live)).toThrow(/^invalid configuration: POLYGON_TOY_NODE: POLYGON cannot run on a real chain in this version/);
    });
  });

  describe('a POLYGON invoice paid on the toy chain: watcher, invoice actor, ledger and outbox', () => {
    let stack: Stack;
    let m: MerchantCredentials;
    beforeAll(async () => {
      stack = await startStack({ env: { HD_MNEMONIC: MNEMONIC }, config: { families: TEST_FAMILIES } });
      m = await createMerchant(stack);
    });
    afterAll(async () => {
      await stack?.stop();
    });

    it('the network shows the toy token; the invoice gets a toy deposit address derived by the toy codec', async () => {
      const { networks } = await rpc<ListNetworksResponse>((cb) => stack.clients.networks.listNetworks({ include_inactive: true }, stack.operator, cb));
      expect(networks.find((n) => n.code === 'POLYGON')!.token_contract).toMatch(TOY_ADDRESS);
      expect(networks.find((n) => n.code === 'BEP20')!.token_contract).toMatch(/^0x[0-9a-fA-F]{40}$/);
      const inv: Json = await createInvoice(stack, m, { amount: '25', network: 'POLYGON' });
      expect(inv.address).toMatch(TOY_ADDRESS);
      // The pool derived it by the toy codec (in the daemon's thread: the derivation thread knows only the built-in families).
      const pooled = await query<{ address: string }>(stack, 'select address from deposit_addresses where network = ? order by derivation_index limit 2', ['POLYGON']);
      expect(pooled.map((r) => r.address)).toEqual([0, 1].map((i) => new ToyCodec({ mnemonic: MNEMONIC }).deriveDepositAddress(i)));
      expect(inv.qr_svg).toContain('<svg');
    });

    it('a payment (to the address in lower case: the family normalizes) is seen, confirmed, credited and announced', async () => {
      const inv: Json = await createInvoice(stack, m, { amount: '40', network: 'POLYGON' });
      const before = await balance(stack, m.merchantId);
      const tx = await pay(stack, 'POLYGON', inv.address.toLowerCase(), inv.pay_amount);
      const confirming: Json = await waitForStatus(stack, m, inv.uuid, 'confirming');
      expect(confirming).toMatchObject({ received_amount: inv.pay_amount, tx_hash: tx.tx_hash });
      await mine(stack, 'POLYGON', inv.required_confirmations);
      const paid: Json = await waitForStatus(stack, m, inv.uuid, 'paid');
      expect(paid).toMatchObject({ received_amount: inv.pay_amount, tx_hash: tx.tx_hash, paid_late: false });

      // The ledger: the merchant's net is credited, once, in balanced journals.
      expect(new Decimal(await balance(stack, m.merchantId)).minus(before).eq(inv.merchant_net)).toBe(true);
      await expectLedgerExact(stack.daemon.orm);
      // The outbox: the invoice's events, for the webhook.
      const types = (await query<{ type: string }>(stack, 'select type from outbox_events where aggregate_id = ? order by seq', [inv.uuid])).map((r) => r.type);
      expect(types).toEqual(expect.arrayContaining(['invoice.confirming', 'invoice.paid']));
      expect((await getInvoice(stack, m, inv.uuid)).payments).toHaveLength(1);
    });

    it('a transfer to another toy address is not a payment of the invoice', async () => {
      const inv: Json = await createInvoice(stack, m, { amount: '5', network: 'POLYGON' });
      await pay(stack, 'POLYGON', new ToyCodec({}).sampleAddress('a stranger'), inv.pay_amount);
      await mine(stack, 'POLYGON', 2);
      await caughtUp(stack, 'POLYGON'); // the watcher has seen the transfer's block and those after it
      const res = await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`);
      expect(res.body).toMatchObject({ status: 'pending', received_amount: '0' });
    });

    it('an address of another family is refused as a POLYGON address (the toy codec validates)', async () => {
      const res = await signed(stack, m, 'POST', '/v1/withdrawals', { amount: '1', network: 'POLYGON', address: '0x000000000000000000000000000000000000dEaD' });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'invalid_address' });
    });
  });
});

async function balance(stack: Stack, merchantId: string): Promise<string> {
  const rows = await query<{ available: string }>(stack, 'select available from merchant_balances where merchant_id = ?', [merchantId]);
  return rows[0]?.available ?? '0';
}
