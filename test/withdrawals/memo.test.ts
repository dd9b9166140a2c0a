import { run } from '../../src/cli/main';
import { ERROR_CODE_KEY } from '../../src/grpc/errors';
import type { Withdrawal as GrpcWithdrawal, WhitelistEntry } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { createMerchant, rpc, signed, startStack, type MerchantCredentials, type Stack } from '../support/stack';
import { addressOf, advance, countWithdrawalTraces, DAY_S, fund, mine, stackRpcs, waitBroadcast, waitForWithdrawal, WD_ENV, whitelist, type Body, type Rpcs } from './support';

jest.setTimeout(60_000);

/**
 * Issue 45 item 5 on devnet: `memo` on withdrawals (TON only) and on whitelist entries. REST round
 * trip (201, GET, list, webhook data, gRPC), the refusals (422 with field), a whitelist entry's memo
 * inherited by a withdrawal without its own, and the devnet TON payout carrying it as its comment.
 */
describe('withdrawal memo (devnet)', () => {
  let stack: Stack;
  let r: Rpcs;
  let m: MerchantCredentials;
  const ton = addressOf('TON', 'memo-exchange');
  const tonPlain = addressOf('TON', 'memo-plain');
  const tron = addressOf('TRC20', 'memo-tron');

  async function cli(...argv: string[]): Promise<Body> {
    let out = '';
    let err = '';
    const io = { env: { CHAINPAY_GRPC_ADDR: stack.grpcAddress, DATA_DIR: stack.dataDir }, stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } };
    const code = await run([...argv, '--json'], io);
    if (code !== 0) throw new Error(`chainpay ${argv.join(' ')} exited ${code}: ${err}`);
    return JSON.parse(out);
  }
  const withdraw = (body: Record<string, unknown>) => signed(stack, m, 'POST', '/v1/withdrawals', body);
  const outboxData = async (uuid: string): Promise<Body[]> =>
    (await stack.daemon.orm.em.fork().execute<{ body: string }[]>('select body from outbox_events where aggregate_id = ? order by seq', [uuid])).map((e) => JSON.parse(e.body).data);

  beforeAll(async () => {
    stack = await startStack({ env: WD_ENV });
    r = stackRpcs(stack);
    m = await createMerchant(stack);
    await fund(r, m.merchantId, '200');
    await whitelist(r, m.merchantId, 'TRC20', tron);
    await whitelist(r, m.merchantId, 'TON', tonPlain);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('a whitelist entry takes a memo on TON only (CLI --memo, gRPC); another memo restarts the cooldown', async () => {
    const entry = await cli('whitelist', 'add', '--merchant', m.merchantId, '--network', 'TON', '--address', ton, '--memo', 'EXCH 4711');
    expect(entry).toMatchObject({ network: 'TON', address: ton, memo: 'EXCH 4711' });
    const listed = (await cli('whitelist', 'list', '--merchant', m.merchantId, '--network', 'TON')).entries as Body[];
    expect(listed.find((e) => e.address === ton)).toMatchObject({ memo: 'EXCH 4711' });
    // The same memo again: unchanged (the cooldown stands).
    const again = await rpc<WhitelistEntry>((cb) => r.withdrawals.addWhitelist({ merchant_id: m.merchantId, network: 'TON', address: ton, memo: 'EXCH 4711' }, r.operator, cb));
    expect(again.usable_at).toBe(entry.usable_at);
    const refused = await rpc((cb) => r.withdrawals.addWhitelist({ merchant_id: m.merchantId, network: 'TRC20', address: tron, memo: 'x' }, r.operator, cb)).catch(
      (e: { metadata: { get(k: string): unknown[] } }) => e,
    );
    expect((refused as { metadata: { get(k: string): unknown[] } }).metadata.get(ERROR_CODE_KEY)).toEqual(['memo_not_supported']);
    const bad = await rpc((cb) => r.withdrawals.addWhitelist({ merchant_id: m.merchantId, network: 'TON', address: ton, memo: 'a\u0007b' }, r.operator, cb)).catch(
      (e: { metadata: { get(k: string): unknown[] } }) => e,
    );
    expect((bad as { metadata: { get(k: string): unknown[] } }).metadata.get(ERROR_CODE_KEY)).toEqual(['invalid_memo']);
    await advance(r, DAY_S);
  });

  it('refuses a memo on another network (422 memo_not_supported) and a malformed one (422 invalid_memo), with its field; nothing is created', async () => {
    const before = await countWithdrawalTraces(stack.daemon.orm, m.merchantId);
    const other = await withdraw({ network: 'TRC20', address: tron, amount: '5', memo: '123' });
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({ code: 'memo_not_supported', field: 'memo' });
    for (const memo of ['', 'line\nbreak', 'tab\there', 'x'.repeat(121), '\u0085next']) {
      const res = await withdraw({ network: 'TON', address: ton, amount: '5', memo });
      expect([memo, res.status, res.body.error]).toEqual([memo, 422, expect.objectContaining({ code: 'invalid_memo', field: 'memo' })]);
    }
    const typed = await withdraw({ network: 'TON', address: ton, amount: '5', memo: 42 });
    expect(typed.status).toBe(400);
    expect(typed.body.error).toMatchObject({ field: 'memo' });
    expect(await countWithdrawalTraces(stack.daemon.orm, m.merchantId)).toEqual(before);
  });

  it('round trip: the memo in the 201, GET, the list, gRPC and the webhook data; the devnet TON payout carries it', async () => {
    const memo = 'Zahlung 🚀 ünïcödé'.padEnd(120, '.');
    const res = await withdraw({ network: 'TON', address: ton, amount: '5', memo, reference: 'memo-own' });
    expect(res.status).toBe(201);
    expect(res.body.memo).toBe(memo);
    expect(Object.keys(res.body).at(-1)).toBe('memo'); // appended after the spec's fields
    const uuid = res.body.uuid as string;
    expect((await signed(stack, m, 'GET', `/v1/withdrawals/${uuid}`)).body.memo).toBe(memo);
    expect(((await signed(stack, m, 'GET', '/v1/withdrawals?reference=memo-own')).body.withdrawals as Body[])[0].memo).toBe(memo);
    expect((await rpc<GrpcWithdrawal>((cb) => r.withdrawals.getWithdrawal({ uuid }, r.forMerchant(m.merchantId), cb))).memo).toBe(memo);
    await waitBroadcast(stack.daemon.orm, uuid);
    await mine(r, 3, 'TON');
    const done = await waitForWithdrawal(stack, m, uuid, 'completed');
    expect(done.memo).toBe(memo);
    expect((await outboxData(uuid)).map((d) => d.memo)).toEqual([memo, memo]);
    // On the devnet chain the payout is a TON transfer with that comment.
    const [onChain] = await stack.daemon.orm.em.fork().execute<{ memo: string | null }[]>(`select memo from devnet_transfers where network = 'TON' and tx_hash = ?`, [done.tx_hash]);
    expect(onChain).toEqual({ memo });

    // Elsewhere: null.
    const plain = (await withdraw({ network: 'TRC20', address: tron, amount: '5' })).body;
    expect(plain.memo).toBeNull();
    const tonNoMemo = (await withdraw({ network: 'TON', address: tonPlain, amount: '5' })).body;
    expect(tonNoMemo.memo).toBeNull();
  });

  it('a withdrawal to a whitelisted address without its own memo carries the entry’s', async () => {
    const res = await withdraw({ network: 'TON', address: ton, amount: '7' });
    expect(res.status).toBe(201);
    expect(res.body.memo).toBe('EXCH 4711');
    const [row] = await stack.daemon.orm.em.fork().execute<{ memo: string }[]>('select memo from withdrawals where uuid = ?', [res.body.uuid]);
    expect(row!.memo).toBe('EXCH 4711');
    // Another memo on the entry starts its cooldown again: until then it cannot be paid to.
    await cli('whitelist', 'add', '--merchant', m.merchantId, '--network', 'TON', '--address', ton, '--memo', 'EXCH 9999');
    const early = await withdraw({ network: 'TON', address: ton, amount: '7' });
    expect(early.body.error).toMatchObject({ code: 'address_in_cooldown', field: 'address' });
  });
});
