import { startStack, createMerchant, signed, rpc, type Stack, type MerchantCredentials } from '../support/stack';
import type { WhitelistEntry, ListWhitelistResponse } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { addressOf, advance, balance, countWithdrawalTraces, DAY_S, expectLedgerExact, fund, stackRpcs, WD_ENV, whitelist, type Rpcs } from './support';

describe('withdrawal refusals', () => {
  let stack: Stack;
  let r: Rpcs;
  let m: MerchantCredentials;
  const listed = addressOf('TRC20', 'listed');
  const post = (body: unknown) => signed(stack, m, 'POST', '/v1/withdrawals', body);

  /** A refusal: the status and code, and nothing stored, held or queued for the merchant. */
  async function expectRefused(body: unknown, status: number, code: string, field?: string): Promise<{ message: string }> {
    const res = await post(body);
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
    if (field) expect(res.body.error.field).toBe(field);
    expect(await countWithdrawalTraces(stack.daemon.orm, m.merchantId)).toEqual({ rows: 0, journals: 0, events: 0 });
    expect(await balance(stack, m)).toEqual({ available: '100', held: '0' });
    return res.body.error;
  }

  beforeAll(async () => {
    stack = await startStack({ env: WD_ENV });
    r = stackRpcs(stack);
    m = await createMerchant(stack);
    await fund(r, m.merchantId, '100');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('refuses an address in its 24 h cooldown (with usable_at), then accepts it once the devnet clock has moved 24 h', async () => {
    const entry = await whitelist(r, m.merchantId, 'TRC20', listed);
    expect(Date.parse(entry.usable_at) - Date.parse(entry.added_at)).toBe(DAY_S * 1000);
    const err = await expectRefused({ network: 'TRC20', address: listed, amount: '10' }, 422, 'address_in_cooldown', 'address');
    expect(err.message).toContain(entry.usable_at);

    await advance(r, DAY_S - 60);
    await expectRefused({ network: 'TRC20', address: listed, amount: '10' }, 422, 'address_in_cooldown');
    await advance(r, 60);
    // Usable now: validated with an amount the balance cannot cover, so nothing is created yet.
    await expectRefused({ network: 'TRC20', address: listed, amount: '100.5' }, 422, 'insufficient_balance', 'amount');
  });

  it('refuses each rule with its own code, storing and holding nothing', async () => {
    await expectRefused({ network: 'TRC20', address: addressOf('TRC20', 'stranger'), amount: '10' }, 422, 'address_not_whitelisted', 'address');
    // The same address on another network is another whitelist entry.
    await expectRefused({ network: 'TON', address: addressOf('TON', 'listed'), amount: '10' }, 422, 'address_not_whitelisted');
    await expectRefused({ network: 'DOGE', address: listed, amount: '10' }, 422, 'unknown_network', 'network');
    await expectRefused({ network: 'TRC20', address: addressOf('POLYGON', 'evm'), amount: '10' }, 422, 'invalid_address', 'address');
    // Each network's own format: EVM checksum, TRON base58check, TON, SOLANA base58 public key.
    const evm = addressOf('POLYGON', 'checksum');
    const badChecksum = evm.replace(/[a-f]/, (c) => c.toUpperCase());
    expect(badChecksum).not.toBe(evm);
    await expectRefused({ network: 'POLYGON', address: badChecksum, amount: '10' }, 422, 'invalid_address', 'address');
    await expectRefused({ network: 'TRC20', address: `${listed.slice(0, -1)}${listed.endsWith('a') ? 'b' : 'a'}`, amount: '10' }, 422, 'invalid_address');
    await expectRefused({ network: 'TON', address: 'EQ-not-a-ton-address', amount: '10' }, 422, 'invalid_address');
    await expectRefused({ network: 'SOLANA', address: '0OIl', amount: '10' }, 422, 'invalid_address');
    await expectRefused({ network: 'TRC20', address: listed, amount: '0.5' }, 422, 'amount_below_minimum', 'amount');
    await expectRefused({ network: 'TRC20', address: listed, amount: '1' }, 422, 'amount_not_above_fee', 'amount');
    await expectRefused({ network: 'TRC20', address: listed, amount: '1.0000001' }, 422, 'too_many_decimals', 'amount');
    await expectRefused({ network: 'TRC20', address: listed, amount: '101' }, 422, 'insufficient_balance', 'amount');
    // Amount columns are numeric(38,18) (20 integer digits); the documented bound is 18 integer digits,
    // so 19 or 21+ digits are refused as invalid_amount (21 digits used to fail with a 500 at the insert).
    await expectRefused({ network: 'TRC20', address: listed, amount: `1${'0'.repeat(20)}` }, 422, 'invalid_amount', 'amount');
    await expectRefused({ network: 'TRC20', address: listed, amount: '1234567890123456789.5' }, 422, 'invalid_amount', 'amount');
    // 18 integer digits pass the amount rules and meet the next rule: the balance.
    await expectRefused({ network: 'TRC20', address: listed, amount: '999999999999999999.999999' }, 422, 'insufficient_balance', 'amount');
    await expectRefused({ network: 'TRC20', address: listed, amount: 10 }, 400, 'invalid_body', 'amount');
    await expectRefused({ network: 'TRC20', amount: '10' }, 400, 'missing_field', 'address');
    await expectRefused({ network: 'TRC20', address: listed, amount: '10', reference: '' }, 422, 'invalid_reference', 'reference');
    await expectRefused('{"network":', 400, 'malformed_json');
    // A field the body does not have (a typo, or a fee of the merchant's choosing) is refused, not dropped.
    const unknown = await expectRefused({ network: 'TRC20', address: listed, amount: '10', fee: '0' }, 422, 'unknown_field', 'fee');
    expect(unknown.message).toBe('unknown field "fee"; this body accepts network, address, amount, reference, memo');
    await expectRefused({ netwrok: 'TRC20', address: listed, amount: '10' }, 422, 'unknown_field', 'netwrok');
    await expectLedgerExact(stack.daemon.orm);
  });

  it('an address matches in any of its forms; removing it refuses it, re-adding restarts the cooldown', async () => {
    const evm = addressOf('POLYGON', 'evm-payee');
    const added = await whitelist(r, m.merchantId, 'POLYGON', evm.toLowerCase());
    // Adding it again (checksummed) is the same entry: the cooldown that runs is kept.
    const again = await whitelist(r, m.merchantId, 'POLYGON', evm);
    expect(again).toEqual(added);

    await rpc<WhitelistEntry>((cb) => r.withdrawals.removeWhitelist({ merchant_id: m.merchantId, network: 'TRC20', address: listed }, r.operator, cb));
    await expectRefused({ network: 'TRC20', address: listed, amount: '10' }, 422, 'address_not_whitelisted');
    const readded = await whitelist(r, m.merchantId, 'TRC20', listed);
    await expectRefused({ network: 'TRC20', address: listed, amount: '10' }, 422, 'address_in_cooldown');
    const list = await rpc<ListWhitelistResponse>((cb) => r.withdrawals.listWhitelist({ merchant_id: m.merchantId }, r.operator, cb));
    expect(list.entries.map((e) => [e.network, e.address])).toEqual([
      ['POLYGON', evm.toLowerCase()],
      ['TRC20', listed],
    ]);
    expect(list.entries[1]!.usable_at).toBe(readded.usable_at);
  });

  it('whitelist changes need the operator or service token; a signed merchant call is refused', async () => {
    const { createHmac } = await import('node:crypto');
    const md = new (await import('@grpc/grpc-js')).Metadata();
    md.set('x-service-key', m.apiKey);
    md.set('x-service-signature', createHmac('sha256', m.apiSecret).update('').digest('hex'));
    const err = await rpc((cb) => r.withdrawals.addWhitelist({ merchant_id: m.merchantId, network: 'TRC20', address: addressOf('TRC20', 'thief') }, md, cb)).catch(
      (e: { code: number; metadata: { get(k: string): unknown[] } }) => e,
    );
    expect((err as { metadata: { get(k: string): unknown[] } }).metadata.get('chainpay-error-code')).toEqual(['whitelist_requires_operator']);
    await expectRefused({ network: 'TRC20', address: addressOf('TRC20', 'thief'), amount: '10' }, 422, 'address_not_whitelisted');
  });
});
