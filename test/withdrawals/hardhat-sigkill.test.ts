import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Address, Hex } from 'viem';
import { ERC20_ABI } from '../../src/chains/evm/abi';
import type { CreateMerchantResponse } from '../../src/grpc/generated/chainpay/v1/merchants';
import type { CreateWithdrawalResponse, Withdrawal } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { openDatabase } from '../../src/store/orm';
import { RawSql } from '../../src/store/raw-sql';
import { highestOpenSequence } from '../../src/store/repos/payout-rows';
import { evmPayoutWallet } from '../../src/chains/evm/payout-wallet';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { grpcPortFrom, spawnTs, type Spawned } from '../support/processes';
import { eventually, rpc } from '../support/stack';
import { polygonOnHardhat, TEST_MNEMONIC, testCodec } from '../evm/support/adapter';
import { startHardhatNode, type HardhatNode } from '../evm/support/hardhat-node';
import { TestChain } from '../evm/support/test-chain';
import type { CreateInvoiceResponse, Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import { toBaseUnits } from '../../src/chains/amount';
import { backdateWhitelist, expectLedgerExact, processRpcs, whitelist, type Rpcs } from './support';

jest.setTimeout(180_000);

/**
 * The SIGKILL test of sigkill.test.ts on a real chain: POLYGON runs live on a `hardhat node`, the
 * payout is an ERC-20 transfer from the daemon's hot wallet. Killed after the signed transaction
 * was persisted and before it was broadcast, then restarted: the stored transaction is sent, never
 * a second one, and its nonce is still the wallet's.
 */
describe('a POLYGON payout interrupted by SIGKILL on a hardhat node', () => {
  let node: HardhatNode;
  let chain: TestChain;
  let token: Address;
  let db: TestDatabase;
  let orm: MikroORM | undefined;
  const running: Spawned[] = [];
  const dbs: TestDatabase[] = [];
  const orms: MikroORM[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-wd-hh-kill-'));
  const hot = testCodec().hotWallet().address as Address;
  const payee = testCodec().sampleAddress('hardhat sigkill payee') as Address;

  /** A live daemon process with POLYGON on the node (the other networks disabled) and gRPC clients for it. */
  async function startProcess(killAt?: string, env: Record<string, string> = {}, on: { db: TestDatabase; dataDir: string } = { db, dataDir }) {
    const proc = spawnTs('src/main.ts', {
      DATABASE_URL: on.db.url,
      DATA_DIR: on.dataDir,
      GRPC_PORT: '0',
      CHAINPAY_TEST_KILL_AT: killAt,
      PAYOUT_POLL_INTERVAL_MS: '250',
      ...env,
      ...polygonOnHardhat(node.url, token),
    });
    running.push(proc);
    const ended = new Promise<number | null>((resolve) => proc.child.once('close', (code) => resolve(code)));
    const address = `127.0.0.1:${grpcPortFrom(await proc.waitFor(/gRPC server listening/))}`;
    return { proc, ended, ...processRpcs(address, on.dataDir) };
  }

  /** Credits `amount` to the merchant: a POLYGON invoice paid on the node (buyer pays the fees: merchant_net = amount). */
  async function fund(r: Rpcs, merchantId: string, amount: string): Promise<void> {
    const md = r.forMerchant(merchantId);
    const inv = (await rpc<CreateInvoiceResponse>((cb) => r.invoices.createInvoice({ amount, network: 'POLYGON' }, md, cb))).invoice!;
    await chain.transfer(token, inv.address! as Address, toBaseUnits(inv.pay_amount, 6));
    await eventually(
      async () => {
        await chain.mine(1);
        const got = await rpc<Invoice>((cb) => r.invoices.getInvoice({ uuid: inv.uuid }, md, cb));
        return got.status === 'paid' ? true : undefined;
      },
      30_000,
      'funding invoice to be paid',
    );
  }

  /** Transfer logs of the token to the payee, on the node itself. */
  async function transfersToPayee(to: Address = payee): Promise<{ txHash: string; from: string; value: bigint }[]> {
    const logs = await chain.public.getContractEvents({ address: token, abi: ERC20_ABI, eventName: 'Transfer', args: { to }, fromBlock: 0n });
    return logs.map((l) => ({ txHash: l.transactionHash, from: l.args.from!.toLowerCase(), value: l.args.value! }));
  }

  beforeAll(async () => {
    node = await startHardhatNode();
    chain = new TestChain(node.url);
    token = await chain.deployToken(6);
    await chain.mint(token, hot, 1_000n * 10n ** 6n);
    await chain.mint(token, chain.funder.address, 10n ** 12n);
    await chain.fundEth(hot);
    db = await createTestDatabase('cp_wdhhkill');
  }, 90_000);
  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await orm?.close();
    for (const o of orms) await o.close();
    for (const d of dbs) await d.drop();
    await db?.drop();
    await node?.stop();
  });

  it('killed after signing and before broadcasting: after restart exactly one Transfer to the payee, completed, ledger exact', async () => {
    // 1. Killed right after the signed transaction was persisted.
    const a = await startProcess('after_sign');
    const created = await rpc<CreateMerchantResponse>((cb) => a.merchants.createMerchant({ name: 'Hardhat kill shop' }, a.r.operator, cb));
    const merchantId = created.merchant!.merchant_id;
    await fund(a.r, merchantId, '50');
    await whitelist(a.r, merchantId, 'POLYGON', payee);
    await backdateWhitelist(db.url, merchantId);
    const md = a.r.forMerchant(merchantId);
    const res = await rpc<CreateWithdrawalResponse>((cb) => a.r.withdrawals.createWithdrawal({ network: 'POLYGON', address: payee, amount: '10', reference: 'hh-kill-1' }, md, cb)).catch(() => null);
    expect(await a.ended).toBeNull(); // SIGKILL: no exit code
    a.close();
    expect(a.proc.output()).toMatch(/payout signed and persisted/);
    expect(a.proc.output()).toMatch(/"point":"after_sign"/);

    orm = await openDatabase({ clientUrl: db.url });
    const [row] = await orm.em
      .fork()
      .execute<{ uuid: string; status: string; tx_hash: string | null; signed_meta: Record<string, string | number> }[]>(
        'select uuid, status, tx_hash, signed_meta from withdrawals where reference = ?',
        ['hh-kill-1'],
      );
    if (res) expect(res.withdrawal!.uuid).toBe(row!.uuid);
    expect(row).toMatchObject({ status: 'processing', tx_hash: null });
    const signedHash = String(row!.signed_meta.latest_tx_hash) as Hex;
    const nonce = Number(row!.signed_meta.nonce);
    expect(row!.signed_meta).toMatchObject({ from: hot.toLowerCase(), chainId: 31337 });
    // Nothing reached the node: the wallet's pending count does not cover the stored nonce, only the database does.
    await expect(chain.public.getTransaction({ hash: signedHash })).rejects.toThrow();
    expect(await chain.public.getTransactionCount({ address: hot, blockTag: 'pending' })).toBe(nonce);
    expect(await highestOpenSequence(new RawSql(orm).query, evmPayoutWallet(31337, hot))).toBe(nonce);
    expect(await transfersToPayee()).toEqual([]);

    // 2. Restarted without the hook: the stored transaction is broadcast, confirmed, completed.
    const c = await startProcess();
    try {
      const done = await eventually(
        async () => {
          await chain.mine(1);
          const w = await rpc<Withdrawal>((cb) => c.r.withdrawals.getWithdrawal({ uuid: row!.uuid }, c.r.forMerchant(merchantId), cb));
          return w.status === 'completed' ? w : undefined;
        },
        60_000,
        'the interrupted withdrawal to complete',
      );
      expect(done).toMatchObject({ tx_hash: signedHash, net_payout: '9.8' });
      expect(done.completed_at).toBeTruthy();
      expect(c.proc.output()).toMatch(/reusing the persisted transaction/);
      expect(c.proc.output()).not.toMatch(/payout signed and persisted/);
      expect(await transfersToPayee()).toEqual([{ txHash: signedHash, from: hot.toLowerCase(), value: 9_800_000n }]);
      expect((await chain.public.getTransaction({ hash: signedHash })).nonce).toBe(nonce);
      expect(await highestOpenSequence(new RawSql(orm).query, evmPayoutWallet(31337, hot))).toBeNull(); // closed: the node's count covers it now

      const [bal] = await orm.em
        .fork()
        .execute<{ available: string; held: string }[]>('select available::float8::text as available, held::float8::text as held from merchant_balances where merchant_id = ?', [merchantId]);
      expect(bal).toEqual({ available: '40', held: '0' });
      const journals = await orm.em.fork().execute<{ reference: string }[]>(`select reference from journals where reference like 'withdrawal:%' order by reference`);
      expect(journals.map((j) => j.reference)).toEqual([`withdrawal:${row!.uuid}:hold`, `withdrawal:${row!.uuid}:payout`]);
      await expectLedgerExact(orm);
    } finally {
      c.close();
      c.proc.child.kill('SIGTERM');
      await c.ended;
    }
  });

  it('a payout stored signed but not broadcast keeps its nonce across the restart: a payout signed after it, before its broadcast, takes the next nonce; both paid once', async () => {
    // One payout step at a time: A's signature holds the only slot while B's waits behind it, and
    // after the restart both signatures (A's reused, B's new) run before A's broadcast. The node's
    // pending count then does not cover A's nonce: only the stored payout does.
    const oneSlot = { PAYOUT_CONCURRENCY: '1' };
    // Its own database and DATA_DIR: nothing left open by another test is restored here.
    const own = { db: await createTestDatabase('cp_wdhhnonce'), dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-wd-hh-nonce-')) };
    dbs.push(own.db);
    const [payeeA, payeeB] = [testCodec().sampleAddress('hardhat nonce A') as Address, testCodec().sampleAddress('hardhat nonce B') as Address];
    const a = await startProcess('after_sign', oneSlot, own);
    const merchantId = (await rpc<CreateMerchantResponse>((cb) => a.merchants.createMerchant({ name: 'Hardhat nonce shop' }, a.r.operator, cb))).merchant!.merchant_id;
    await fund(a.r, merchantId, '100');
    for (const to of [payee, payeeA, payeeB]) await whitelist(a.r, merchantId, 'POLYGON', to);
    await backdateWhitelist(own.db.url, merchantId);
    const orm = await openDatabase({ clientUrl: own.db.url });
    orms.push(orm);
    await orm.em.fork().execute('update merchants set cap_per_withdrawal = 20 where id = ?', [merchantId]);
    const md = a.r.forMerchant(merchantId);
    const create = (to: Address, amount: string, reference: string) =>
      rpc<CreateWithdrawalResponse>((cb) => a.r.withdrawals.createWithdrawal({ network: 'POLYGON', address: to, amount, reference }, md, cb)).catch(() => null);

    // A and B are committed in one batch (so both start signing together): a first request, above
    // the cap (review: nothing to sign), is held at the merchant's lock while they queue behind it.
    const em = orm.em.fork();
    await em.begin();
    try {
      await em.execute('select id from merchants where id = ? for update', [merchantId]);
      void create(payee, '25', 'hh-nonce-review');
      await eventually(
        async () => {
          const [w] = await orm.em.fork().execute<{ n: number }[]>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
          return w!.n > 0 ? true : undefined;
        },
        10_000,
        'the first creation to wait for the merchant lock',
      );
      void create(payeeA, '10', 'hh-nonce-a');
      void create(payeeB, '10', 'hh-nonce-b');
      await new Promise((r) => setTimeout(r, 500)); // both past their checks, queued for the next batch
      await em.commit();
    } catch (err) {
      await em.rollback();
      throw err;
    }
    expect(await a.ended).toBeNull(); // SIGKILL after the first signature
    a.close();

    type Row = { uuid: string; reference: string; status: string; tx_hash: string | null; nonce: string | null; signed_hash: string | null };
    const rows = async () =>
      orm.em
        .fork()
        .execute<Row[]>(
          `select uuid, reference, status, tx_hash, signed_meta->>'nonce' as nonce, signed_meta->>'latest_tx_hash' as signed_hash from withdrawals where merchant_id = ? order by reference`,
          [merchantId],
        );
    const before = await rows();
    expect(before.map((r) => [r.reference, r.status])).toEqual([
      ['hh-nonce-a', 'processing'],
      ['hh-nonce-b', 'processing'],
      ['hh-nonce-review', 'review'],
    ]);
    const signedFirst = before.filter((r) => r.nonce !== null);
    expect(signedFirst).toHaveLength(1); // the other one was still waiting for the slot
    const firstNonce = Number(signedFirst[0]!.nonce);
    expect(await chain.public.getTransactionCount({ address: hot, blockTag: 'pending' })).toBe(firstNonce);

    const c = await startProcess(undefined, oneSlot, own);
    try {
      await eventually(
        async () => {
          await chain.mine(1);
          const now = await rows();
          return now.filter((r) => r.status === 'completed').length === 2 ? now : undefined;
        },
        60_000,
        'both withdrawals to complete',
      );
      const after = await rows();
      const [wa, wb] = after;
      expect(c.proc.output()).toMatch(/reusing the persisted transaction/);
      expect(c.proc.output()).not.toMatch(/payout needs an operator/);
      // The one signed after the restart took the next nonce, not the stored one's.
      const second = after.find((r) => r.uuid !== signedFirst[0]!.uuid && r.status === 'completed')!;
      expect(Number(second.nonce)).toBe(firstNonce + 1);
      expect(after.find((r) => r.uuid === signedFirst[0]!.uuid)!.tx_hash).toBe(signedFirst[0]!.signed_hash);
      // Exactly one transfer to each payee, each the withdrawal's net_payout and transaction.
      expect(await transfersToPayee(payeeA)).toEqual([{ txHash: wa!.tx_hash, from: hot.toLowerCase(), value: 9_800_000n }]);
      expect(await transfersToPayee(payeeB)).toEqual([{ txHash: wb!.tx_hash, from: hot.toLowerCase(), value: 9_800_000n }]);
      const [bal] = await orm.em
        .fork()
        .execute<{ available: string; held: string }[]>('select available::float8::text as available, held::float8::text as held from merchant_balances where merchant_id = ?', [merchantId]);
      expect(bal).toEqual({ available: '55', held: '25' }); // 100 - 2 x 10 paid - 25 in review
      await expectLedgerExact(orm);
    } finally {
      c.close();
      c.proc.child.kill('SIGTERM');
      await c.ended;
    }
  });
});
