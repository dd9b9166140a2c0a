import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase } from '../../src/store/orm';
import type { CreateMerchantResponse, MerchantServiceClient } from '../../src/grpc/generated/chainpay/v1/merchants';
import type { CreateWithdrawalResponse, Withdrawal } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { grpcPortFrom, spawnTs, type Spawned } from '../support/processes';
import { eventually, rpc } from '../support/stack';
import { addressOf, advance, DAY_S, expectLedgerExact, fund, mine, processRpcs, WD_ENV, whitelist, type Rpcs } from './support';

jest.setTimeout(120_000);

/**
 * A daemon process on the shared database and DATA_DIR. `ended` resolves with the exit code once
 * its output is complete too ('exit' may come before the last lines are read; 'close' does not).
 */
function spawnDaemon(db: TestDatabase, dataDir: string, killAt?: string): { proc: Spawned; ended: Promise<number | null> } {
  const proc = spawnTs('src/main.ts', { DATABASE_URL: db.url, DATA_DIR: dataDir, GRPC_PORT: '0', DEVNET_BLOCK_MS: '0', CHAINPAY_TEST_KILL_AT: killAt, ...WD_ENV });
  const ended = new Promise<number | null>((resolve) => proc.child.once('close', (code) => resolve(code)));
  return { proc, ended };
}

/** A daemon process with gRPC clients for it. */
async function startProcess(db: TestDatabase, dataDir: string, killAt?: string): Promise<{ proc: Spawned; ended: Promise<number | null>; r: Rpcs; merchants: MerchantServiceClient; close(): void }> {
  const { proc, ended } = spawnDaemon(db, dataDir, killAt);
  const address = `127.0.0.1:${grpcPortFrom(await proc.waitFor(/gRPC server listening/))}`;
  return { proc, ended, ...processRpcs(address, dataDir) };
}

/** Broadcasts the devnet accepted and not yet mined (each is committed before broadcastPayout returns). */
async function pendingBroadcasts(db: TestDatabase, txHash: string): Promise<number> {
  return (await query<{ n: number }>(db, `select count(*)::int as n from devnet_mempool where network = 'TRC20' and tx_hash = $1`, [txHash]))[0]!.n;
}

/** Transfers to `to` in the canonical blocks of the devnet chain (the database holds it). */
async function onChainTransfersTo(db: TestDatabase, to: string): Promise<{ txHash: string; amount: string }[]> {
  return query<{ txHash: string; amount: string }>(
    db,
    `select t.tx_hash as "txHash", trim_scale(t.amount)::text as amount from devnet_transfers t join devnet_blocks b on b.network = t.network and b.hash = t.block_hash
      where t.network = 'TRC20' and b.canonical and t.to_address = $1 order by b.height, t.event_index`,
    [to],
  );
}

async function query<T>(db: TestDatabase, text: string, values: unknown[]): Promise<T[]> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('a payout interrupted by SIGKILL', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-wd-kill-'));
  const payee = addressOf('TRC20', 'kill-payee');

  beforeAll(async () => {
    db = await createTestDatabase('cp_wdkill');
  });
  afterAll(async () => {
    await orm?.close();
    await db?.drop();
  });

  it('killed after signing, then after broadcasting: after restart exactly one payout on chain, never signed anew, ledger exact', async () => {
    // 1. Killed right after the signed transaction was persisted, before it was broadcast.
    const a = await startProcess(db, dataDir, 'after_sign');
    const created = await rpc<CreateMerchantResponse>((cb) => a.merchants.createMerchant({ name: 'Kill shop' }, a.r.operator, cb));
    const merchantId = created.merchant!.merchant_id;
    await fund(a.r, merchantId, '50');
    await whitelist(a.r, merchantId, 'TRC20', payee);
    await advance(a.r, DAY_S);
    const md = a.r.forMerchant(merchantId);
    const res = await rpc<CreateWithdrawalResponse>((cb) => a.r.withdrawals.createWithdrawal({ network: 'TRC20', address: payee, amount: '20', reference: 'kill-1' }, md, cb)).catch(() => null);
    expect(await a.ended).toBeNull(); // SIGKILL: no exit code
    a.close();
    expect(a.proc.output()).toMatch(/payout signed and persisted/);
    expect(a.proc.output()).toMatch(/"point":"after_sign"/);

    orm = await openDatabase({ clientUrl: db.url });
    const [stored] = await orm.em
      .fork()
      .execute<{ uuid: string; status: string; tx_hash: string | null; signed_raw: string; signed_hash: string }[]>(
        `select uuid, status, tx_hash, signed_raw, signed_meta->>'latest_tx_hash' as signed_hash from withdrawals where reference = ?`,
        ['kill-1'],
      );
    if (res) expect(res.withdrawal!.uuid).toBe(stored!.uuid);
    expect(stored).toMatchObject({ status: 'processing' });
    expect(stored!.tx_hash).toBeNull(); // the spec's "null until broadcast": the signed hash is kept in signed_meta
    expect(stored!.signed_hash).toMatch(/\S/);
    expect(stored!.signed_raw).toBeTruthy();
    const row = { uuid: stored!.uuid, tx_hash: stored!.signed_hash };
    expect(await onChainTransfersTo(db, payee)).toEqual([]);
    expect(await pendingBroadcasts(db, row.tx_hash)).toBe(0);

    // 2. Restarted: the stored transaction is broadcast, and the daemon is killed right after that
    //    (resuming may beat the gRPC server to it, so only the process is watched).
    const b = spawnDaemon(db, dataDir, 'after_broadcast');
    expect(await b.ended).toBeNull();
    expect(b.proc.output()).toMatch(/reusing the persisted transaction/);
    expect(b.proc.output()).toMatch(/"point":"after_broadcast"/);
    expect(b.proc.output()).not.toMatch(/payout signed and persisted/);
    expect(await pendingBroadcasts(db, row.tx_hash)).toBe(1); // sent, not yet in a block

    // 3. Restarted without the hook: rebroadcast (harmless) or found, confirmed, completed.
    const c = await startProcess(db, dataDir);
    try {
      const done = await eventually(
        async () => {
          await mine(c.r, 1);
          const w = await rpc<Withdrawal>((cb) => c.r.withdrawals.getWithdrawal({ uuid: row.uuid }, c.r.forMerchant(merchantId), cb));
          return w.status === 'completed' ? w : undefined;
        },
        30_000,
        'the interrupted withdrawal to complete',
      );
      expect(done.tx_hash).toBe(row.tx_hash);
      expect(done.completed_at).toBeTruthy();
      expect(c.proc.output()).not.toMatch(/payout signed and persisted/);
      expect(await onChainTransfersTo(db, payee)).toEqual([{ txHash: row.tx_hash, amount: '19' }]);

      const [bal] = await orm.em
        .fork()
        .execute<{ available: string; held: string }[]>('select available::float8::text as available, held::float8::text as held from merchant_balances where merchant_id = ?', [merchantId]);
      expect(bal).toEqual({ available: '30', held: '0' });
      const journals = await orm.em.fork().execute<{ reference: string }[]>(`select reference from journals where reference like 'withdrawal:%' order by reference`);
      expect(journals.map((j) => j.reference)).toEqual([`withdrawal:${row.uuid}:hold`, `withdrawal:${row.uuid}:payout`]);
      await expectLedgerExact(orm);
    } finally {
      c.close();
      c.proc.child.kill('SIGTERM');
      await c.ended;
    }
  });
});
