import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { openDatabase } from '../../store/orm';
import { RawSql } from '../../store/raw-sql';
import { createAddressCodec } from '../codecs';
import { DevnetAdapter } from './adapter';
import { deterministicBlockHash, randomBlockHash, randomTxHash } from './hashes';
import { devnetTokenId } from './ids';
import { PgDevnetStore } from './pg-store';
import { CountingSet, manualClock, Recorder } from './testing';
import type { DevnetBlock, PendingTransfer } from './types';

/** A database upgraded from the version that journaled devnet chains under DATA_DIR/devnet. */
const MNEMONIC = 'test test test test test test test test test test test junk';
const codec = createAddressCodec('TRC20', { mnemonic: MNEMONIC });
let db: TestDatabase;
let orm: MikroORM;
let store: PgDevnetStore;
let dir: string;
const opened: DevnetAdapter[] = [];

async function devnet(): Promise<DevnetAdapter> {
  const adapter = new DevnetAdapter({ network: 'TRC20', codec, clock: manualClock(), blockIntervalMs: 0, store, legacyJournalDir: dir });
  opened.push(adapter);
  await adapter.init();
  return adapter;
}

function transfer(to: string, amount: string): PendingTransfer {
  return { txHash: randomTxHash('tron'), from: codec.sampleAddress('buyer'), to, toKey: codec.normalizeAddress(to), amount, memo: null, contract: devnetTokenId('TRC20', codec) };
}

function block(parent: DevnetBlock | null, transfers: PendingTransfer[] = []): DevnetBlock {
  const height = parent ? parent.height + 1 : 0;
  return {
    height,
    hash: parent ? randomBlockHash('tron') : deterministicBlockHash('tron', 'chainpay-devnet:TRC20:genesis'),
    parentHash: parent?.hash ?? deterministicBlockHash('tron', ''),
    timestamp: Date.parse('2025-01-01T00:00:00Z') + height * 1000,
    transfers: transfers.map((t, eventIndex) => ({ ...t, eventIndex })),
  };
}

/** An old journal: genesis, 1-3 (a payment in 3), a reorg of depth 1, 3' and 4', a payout in the mempool. */
function writeJournal(): { b: DevnetBlock[]; orphan: DevnetBlock; paid: PendingTransfer; pending: PendingTransfer; file: string } {
  const paid = transfer(codec.deriveDepositAddress(2), '7.5');
  const pending = transfer(codec.deriveDepositAddress(3), '1');
  const b0 = block(null);
  const b1 = block(b0);
  const b2 = block(b1);
  const orphan = block(b2, [paid]);
  const b3 = block(b2);
  const b4 = block(b3);
  const entries = [b0, b1, b2, orphan].map((x) => ({ type: 'block', block: x }));
  entries.push({ type: 'reorg', depth: 1 } as never, ...[b3, b4].map((x) => ({ type: 'block', block: x })), { type: 'mempool', transfer: pending } as never);
  const file = path.join(dir, 'TRC20.jsonl');
  fs.writeFileSync(file, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
  return { b: [b0, b1, b2, b3, b4], orphan, paid, pending, file };
}

beforeAll(async () => {
  db = await createTestDatabase('cp_devnet_legacy');
  orm = await openDatabase({ clientUrl: db.url });
  store = new PgDevnetStore(new RawSql(orm));
});
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-devnet-legacy-'));
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((a) => a.close()));
  await orm.em.fork().getConnection().execute('truncate devnet_chains, devnet_blocks, devnet_transfers, devnet_mempool');
  fs.rmSync(dir, { recursive: true, force: true });
});
afterAll(async () => {
  await orm?.close();
  await db?.drop();
});

describe("an older version's devnet journal", () => {
  it('is imported once with its orphans and mempool, then renamed; the chain goes on from its head', async () => {
    const { b, orphan, pending, file } = writeJournal();
    const chain = await devnet();
    expect(chain.head()).toEqual({ head: 4, hash: b[4]!.hash });
    expect((await chain.block(3))!.hash).toBe(b[3]!.hash);
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.existsSync(`${file}.imported`)).toBe(true);
    expect((await store.load('TRC20', 10))!.mempool).toEqual([pending]);
    // A watcher left on the orphaned block walks back to the common ancestor, as before the upgrade.
    const rec = new Recorder();
    const watch = chain.watch({ from: { height: 3, hash: orphan.hash }, watched: new CountingSet(new Set()), sink: rec.sink });
    await rec.until(() => rec.lastBlock() === 4);
    await watch.stop();
    expect(rec.seen[0]).toEqual({ kind: 'reorg', network: 'TRC20', commonAncestor: { height: 2, hash: b[2]!.hash }, depth: 1, cursor: { height: 2, hash: b[2]!.hash } });
    expect(await chain.mine(1)).toMatchObject({ head: 5 });

    // A journal found once the database has the chain (e.g. the standby's own file) is left alone.
    fs.copyFileSync(`${file}.imported`, file);
    const again = await devnet();
    expect(again.head().head).toBe(5);
    expect(fs.existsSync(file)).toBe(true);
  });

  it('leaves out a torn last line (killed mid-write, never acknowledged)', async () => {
    const { b, file } = writeJournal();
    fs.appendFileSync(file, '{"type":"block","block":{"heig');
    expect((await devnet()).head()).toEqual({ head: 4, hash: b[4]!.hash });
  });

  it('refuses a journal corrupted before its last line and writes nothing', async () => {
    const { file } = writeJournal();
    fs.writeFileSync(file, `garbage\n${fs.readFileSync(file, 'utf8')}`);
    await expect(devnet()).rejects.toMatchObject({ name: 'LegacyJournalError', message: expect.stringMatching(/corrupt at byte 0.*move it away/) });
    expect(await store.load('TRC20', 10)).toBeNull();
    expect(fs.existsSync(file)).toBe(true);
  });
});
