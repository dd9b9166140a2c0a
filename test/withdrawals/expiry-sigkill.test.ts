import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { openDatabase } from '../../src/store/orm';
import { loadDevnetClockOffset, saveDevnetClockOffset } from '../../src/store/repos/devnet-clock-offset';
import type { CreateMerchantResponse, MerchantServiceClient } from '../../src/grpc/generated/chainpay/v1/merchants';
import type { Withdrawal } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { grpcPortFrom, spawnTs, type Spawned } from '../support/processes';
import { eventually, rpc } from '../support/stack';
import { addressOf, advance, DAY_S, expectLedgerExact, fund, mine, processRpcs, WD_ENV, whitelist, type Rpcs } from './support';

jest.setTimeout(180_000);

/**
 * TRC20 devnet payouts expire 60 s (devnet clock) after signing, as TRON's do (issue 33). A payout
 * signed but never sent before its expiry must be signed anew exactly once, and a crash between that
 * new signature and its broadcast must send the stored one, never sign a third time.
 */
function spawnDaemon(db: TestDatabase, dataDir: string, killAt?: string): { proc: Spawned; ended: Promise<number | null> } {
  const proc = spawnTs('src/main.ts', { DATABASE_URL: db.url, DATA_DIR: dataDir, GRPC_PORT: '0', DEVNET_BLOCK_MS: '0', CHAINPAY_TEST_KILL_AT: killAt, ...WD_ENV });
  const ended = new Promise<number | null>((resolve) => proc.child.once('close', (code) => resolve(code)));
  return { proc, ended };
}

async function startProcess(db: TestDatabase, dataDir: string, killAt?: string): Promise<{ proc: Spawned; ended: Promise<number | null>; r: Rpcs; merchants: MerchantServiceClient; close(): void }> {
  const { proc, ended } = spawnDaemon(db, dataDir, killAt);
  const address = `127.0.0.1:${grpcPortFrom(await proc.waitFor(/gRPC server listening/))}`;
  return { proc, ended, ...processRpcs(address, dataDir) };
}

async function query<T>(db: TestDatabase, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Every transaction to `to` the devnet chain ever put in a block, canonical or not. */
const everMined = (db: TestDatabase, to: string) =>
  query<{ txHash: string; amount: string; canonical: boolean }>(
    db,
    `select t.tx_hash as "txHash", trim_scale(t.amount)::text as amount, b.canonical from devnet_transfers t join devnet_blocks b on b.network = t.network and b.hash = t.block_hash
      where t.network = 'TRC20' and t.to_address = $1 order by b.height`,
    [to],
  );

interface PayoutRowState {
  uuid: string;
  status: string;
  tx_hash: string | null;
  latest: string;
  expired: string | null;
  attempt: number;
}
const payoutRow = async (db: TestDatabase, reference: string): Promise<PayoutRowState> =>
  (
    await query<PayoutRowState>(
      db,
      `select uuid, status, tx_hash, signed_meta->>'latest_tx_hash' as latest, signed_meta->>'expired_tx_hashes' as expired, payout_attempt as attempt from withdrawals where reference = $1`,
      [reference],
    )
  )[0]!;

const signatures = (output: string): string[] => output.split('\n').filter((l) => l.includes('payout signed and persisted'));

describe('an expired TRC20 payout across SIGKILLs', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-wd-expiry-'));
  const payee = addressOf('TRC20', 'expiry-payee');

  beforeAll(async () => {
    db = await createTestDatabase('cp_wdexp');
  });
  afterAll(async () => {
    await orm?.close();
    await db?.drop();
  });

  it('never sent before its expiry: signed anew exactly once (stored before broadcast, a crash sends the stored one); a payout that reached the chain is never signed anew', async () => {
    // 1. Signed and stored, killed before the broadcast.
    const a = await startProcess(db, dataDir, 'after_sign');
    const created = await rpc<CreateMerchantResponse>((cb) => a.merchants.createMerchant({ name: 'Expiry shop' }, a.r.operator, cb));
    const merchantId = created.merchant!.merchant_id;
    await fund(a.r, merchantId, '50');
    await whitelist(a.r, merchantId, 'TRC20', payee);
    await advance(a.r, DAY_S);
    await rpc((cb) => a.r.withdrawals.createWithdrawal({ network: 'TRC20', address: payee, amount: '20', reference: 'exp-1' }, a.r.forMerchant(merchantId), cb)).catch(() => null);
    expect(await a.ended).toBeNull();
    a.close();
    const first = await payoutRow(db, 'exp-1');
    expect(first).toMatchObject({ status: 'processing', tx_hash: null, expired: null, attempt: 0 });

    // 2. The daemon stays down two minutes (devnet clock): the stored transaction's validity ends.
    orm = await openDatabase({ clientUrl: db.url });
    const offset = await loadDevnetClockOffset(orm.em.fork());
    await saveDevnetClockOffset(orm.em.fork(), offset + 120_000, new Date());

    // 3. Restarted: too late to send; once a final block is past its validity the payout is signed
    //    anew, stored, and the daemon is killed before that one is broadcast.
    const b = await startProcess(db, dataDir, 'after_resign');
    for (let i = 0; i < 200; i++) {
      const done = await Promise.race([b.ended.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 100))]);
      if (done) break;
      await mine(b.r, 1).catch(() => undefined);
    }
    expect(await b.ended).toBeNull();
    b.close();
    expect(b.proc.output()).toMatch(/payout too late to send/);
    expect(b.proc.output()).toMatch(/"point":"after_resign"/);
    const resigned = signatures(b.proc.output());
    expect(resigned).toHaveLength(1);
    expect(resigned[0]).toContain(`"expiredTxHash":"${first.latest}"`);
    const second = await payoutRow(db, 'exp-1');
    expect(second).toMatchObject({ status: 'processing', expired: first.latest, attempt: 1 });
    expect(second.latest).not.toBe(first.latest);
    expect(await everMined(db, payee)).toEqual([]);
    expect(await query(db, `select tx_hash from devnet_mempool where network = 'TRC20'`)).toEqual([]);

    // 4. Restarted without the hook: the stored new transaction is sent (not signed a third time), mined, completed.
    const c = await startProcess(db, dataDir);
    try {
      const done = await eventually(
        async () => {
          await mine(c.r, 1);
          const w = await rpc<Withdrawal>((cb) => c.r.withdrawals.getWithdrawal({ uuid: first.uuid }, c.r.forMerchant(merchantId), cb));
          return w.status === 'completed' ? w : undefined;
        },
        30_000,
        'the re-signed withdrawal to complete',
      );
      expect(done.tx_hash).toBe(second.latest);
      expect(signatures(c.proc.output())).toEqual([]);
      expect(await everMined(db, payee)).toEqual([{ txHash: second.latest, amount: '19', canonical: true }]);
      expect(await payoutRow(db, 'exp-1')).toMatchObject({ status: 'completed', tx_hash: second.latest, attempt: 1 });

      // 5. A payout that reached a block is never signed anew, however late it is confirmed.
      const w2 = await rpc<{ withdrawal?: Withdrawal }>((cb) =>
        c.r.withdrawals.createWithdrawal({ network: 'TRC20', address: payee, amount: '10', reference: 'exp-2' }, c.r.forMerchant(merchantId), cb),
      );
      const uuid2 = w2.withdrawal!.uuid;
      const sent = await eventually(async () => (await payoutRow(db, 'exp-2')).tx_hash ?? undefined, 15_000, 'the second payout to be broadcast');
      await mine(c.r, 1);
      await advance(c.r, 600); // ten minutes: far past its validity, but it is in a block
      await eventually(
        async () => {
          await mine(c.r, 1);
          const w = await rpc<Withdrawal>((cb) => c.r.withdrawals.getWithdrawal({ uuid: uuid2 }, c.r.forMerchant(merchantId), cb));
          return w.status === 'completed' ? w : undefined;
        },
        30_000,
        'the mined withdrawal to complete',
      );
      expect(await payoutRow(db, 'exp-2')).toMatchObject({ status: 'completed', tx_hash: sent, expired: null, attempt: 0 });
      expect(signatures(c.proc.output())).toHaveLength(1); // the second withdrawal's only signature
      expect((await everMined(db, payee)).map((t) => t.txHash)).toEqual([second.latest, sent]);

      const [bal] = await query<{ available: string; held: string }>(db, 'select available::float8::text as available, held::float8::text as held from merchant_balances where merchant_id = $1', [
        merchantId,
      ]);
      expect(bal).toEqual({ available: '20', held: '0' });
      await expectLedgerExact(orm);
    } finally {
      c.close();
      c.proc.child.kill('SIGTERM');
      await c.ended;
    }
  });
});
