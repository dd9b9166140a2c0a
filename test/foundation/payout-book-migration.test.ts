import { randomUUID } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { evmPayoutWallet } from '../../src/chains/evm/payout-wallet';
import { ormConfig } from '../../src/store/orm';
import { RawSql } from '../../src/store/raw-sql';
import { highestOpenSequence, readPayoutRow } from '../../src/store/repos/payout-rows';
import { createTestDatabase, type TestDatabase } from '../support/database';

const BEFORE = 'Migration20261128000000InvoiceSnapshotChainTime';
const HOT = '0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266';

/**
 * Migration 20261128020000-payout-book on a database holding payouts of the old shape: EVM nonces
 * known only from signed_meta (chainId, from, nonce), devnet payouts without them, unsigned rows.
 * After it, the host's payout book sees the same nonces as before, so an open signed payout keeps
 * its nonce reserved across the upgrade.
 */
describe('payout book migration', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  beforeAll(async () => {
    db = await createTestDatabase('cp_paybook');
    orm = await MikroORM.init(ormConfig({ clientUrl: db.url }));
  });
  afterAll(async () => {
    await orm?.close();
    await db?.drop();
  });

  const insert = async (status: string, open: boolean, signedMeta: object | null, txHash: string | null = null): Promise<string> => {
    const uuid = randomUUID();
    await orm.em.fork().execute(
      `insert into withdrawals (uuid, merchant_id, status, network, address, amount, network_fee, net_payout, tx_hash, signed_raw, signed_meta, open, created_at, updated_at)
         values (?, ?, ?, 'BEP20', '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', 10, 1, 9, ?, ?, ?::jsonb, ?, now(), now())`,
      [uuid, randomUUID(), status, txHash, signedMeta ? '0x02f8' : null, signedMeta ? JSON.stringify(signedMeta) : null, open],
    );
    return uuid;
  };

  it('backfills wallet and sequence of stored EVM payouts from signed_meta; other rows stay as they were', async () => {
    await orm.getMigrator().up({ to: BEFORE });
    const evm = (nonce: number, chainId = 56) => ({ nonce, from: HOT.toLowerCase(), chainId, payoutId: 'x', replaces: '', signed_at_ms: 1, latest_tx_hash: `0xhash${nonce}` });
    const open7 = await insert('processing', true, evm(7));
    await insert('processing', true, evm(9));
    await insert('completed', false, evm(12), '0xhash12'); // closed: its nonce is the node's business now
    await insert('processing', true, evm(40, 137)); // another chain, another book
    const devnet = await insert('processing', true, { id: 'w', signed_at_ms: 1, latest_tx_hash: 'abc' });
    const unsigned = await insert('review', true, null);

    await orm.getMigrator().up();
    const q = new RawSql(orm).query;
    expect(await highestOpenSequence(q, evmPayoutWallet(56, HOT))).toBe(9);
    expect(await highestOpenSequence(q, evmPayoutWallet(137, HOT))).toBe(40);
    expect(await highestOpenSequence(q, evmPayoutWallet(1, HOT))).toBeNull();
    expect(await readPayoutRow(q, open7)).toEqual({
      status: 'processing',
      attempt: 0,
      memo: null,
      payout: { txHash: '0xhash7', raw: '0x02f8', meta: evm(7), wallet: `56:${HOT.toLowerCase()}`, sequence: 7 },
    });
    expect(await readPayoutRow(q, devnet)).toEqual({
      status: 'processing',
      attempt: 0,
      memo: null,
      payout: { txHash: 'abc', raw: '0x02f8', meta: { id: 'w', signed_at_ms: 1, latest_tx_hash: 'abc' } },
    });
    expect(await readPayoutRow(q, unsigned)).toEqual({ status: 'review', attempt: 0, memo: null, payout: null });
    // The payout being signed does not count itself (a re-signing after expiry).
    expect(await highestOpenSequence(q, evmPayoutWallet(56, HOT), open7)).toBe(9);
    const [mempool] = await orm.em.fork().execute<{ n: string }[]>(`select count(*) as n from information_schema.columns where table_name = 'devnet_mempool' and column_name = 'valid_until_ms'`);
    expect(Number(mempool!.n)).toBe(1);
  });
});
