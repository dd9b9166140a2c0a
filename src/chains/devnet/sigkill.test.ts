import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { openDatabase } from '../../store/orm';
import { RawSql } from '../../store/raw-sql';
import { createAddressCodec } from '../codecs';
import { DevnetAdapter } from './adapter';
import { PgDevnetStore } from './pg-store';
import { CountingSet, manualClock, Recorder } from './testing';

const MNEMONIC = 'test test test test test test test test test test test junk';
const ROOT = path.join(__dirname, '..', '..', '..');

type Acked = { op: 'pay'; txHash: string; blockHeight: number } | { op: 'mine' | 'reorg'; head: number; hash: string } | { op: 'broadcast'; txHash: string };

/**
 * A real SIGKILL: a child process pays, mines, reorgs and broadcasts on the database store as fast
 * as it can, printing each change once it was acknowledged, and is killed mid-stream (most likely
 * inside a write). Every acknowledged change is there afterwards, nothing is half-written or twice.
 */
describe('a devnet chain written by a SIGKILLed process', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  beforeAll(async () => {
    db = await createTestDatabase('cp_devnet_kill');
    orm = await openDatabase({ clientUrl: db.url });
  });
  afterAll(async () => {
    await orm?.close();
    await db?.drop();
  });

  it('holds every acknowledged block, transfer and broadcast, one contiguous chain, nothing doubled', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-devnet-kill-'));
    const script = path.join(dir, 'child.ts');
    const src = (p: string): string => JSON.stringify(path.join(ROOT, 'src', p));
    fs.writeFileSync(
      script,
      `import { DevnetAdapter } from ${src('chains/devnet/adapter')};
import { PgDevnetStore } from ${src('chains/devnet/pg-store')};
import { createAddressCodec } from ${src('chains/codecs')};
import { openDatabase } from ${src('store/orm')};
import { RawSql } from ${src('store/raw-sql')};
const clock = { now: () => new Date(), setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms), clearTimeout: (id: unknown) => clearTimeout(id as NodeJS.Timeout) };
(async () => {
  const orm = await openDatabase({ clientUrl: ${JSON.stringify(db.url)} });
  const chain = new DevnetAdapter({ network: 'BEP20', codec: createAddressCodec('BEP20', { mnemonic: ${JSON.stringify(MNEMONIC)} }), clock, blockIntervalMs: 0, store: new PgDevnetStore(new RawSql(orm)) });
  await chain.init();
  const say = (o: object) => process.stdout.write(JSON.stringify(o) + '\\n');
  for (let i = 1; ; i++) {
    const paid = await chain.pay({ to: chain.deriveDepositAddress(i % 5), amount: String(i) });
    say({ op: 'pay', txHash: paid.txHash, blockHeight: paid.blockHeight });
    const signed = await chain.signPayout({ id: 'w-' + i, to: chain.deriveDepositAddress(9), amount: '1' });
    await chain.broadcastPayout(signed);
    say({ op: 'broadcast', txHash: signed.txHash });
    say({ op: 'mine', ...(await chain.mine(1 + (i % 40))) });
    // Depth 1 right after a mine drops an empty block only: no acknowledged payment vanishes.
    if (i % 3 === 0) say({ op: 'reorg', ...(await chain.reorg(1)) });
  }
})();
`,
    );
    // `node --import tsx` (not the tsx CLI, which forks): the killed pid is the process writing.
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT });
    let out = '';
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.split('\n').length > 120) resolve();
        });
        child.on('exit', (code) => reject(new Error(`child exited ${code}`)));
        setTimeout(() => reject(new Error(`child did not report: ${out}`)), 30_000).unref();
      });
    } finally {
      child.kill('SIGKILL');
      if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once('exit', resolve));
    }
    const lines = out.split('\n');
    // The last line may be torn (killed mid-print); every complete line was acknowledged.
    const acked = lines
      .slice(0, -1)
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Acked);
    const sql = <T>(text: string, values: unknown[] = []): Promise<T[]> => orm.em.fork().getConnection().execute<T[]>(text, values);

    // One contiguous canonical chain from genesis to the stored head, each block on its parent.
    const blocks = await sql<{ height: string; hash: string; parent_hash: string }>(`select height, hash, parent_hash from devnet_blocks where network = 'BEP20' and canonical order by height`);
    const [head] = await sql<{ head_height: string; head_hash: string }>(`select head_height, head_hash from devnet_chains where network = 'BEP20'`);
    expect(blocks.map((b) => Number(b.height))).toEqual(blocks.map((_, i) => i));
    for (let i = 1; i < blocks.length; i++) expect(blocks[i]!.parent_hash).toBe(blocks[i - 1]!.hash);
    expect(blocks[blocks.length - 1]).toMatchObject({ height: head!.head_height, hash: head!.head_hash });
    const lastHead = [...acked].reverse().find((a): a is Extract<Acked, { head: number }> => a.op === 'mine' || a.op === 'reorg')!;
    expect(Number(head!.head_height)).toBeGreaterThanOrEqual(lastHead.head);

    // Every acknowledged payment is on chain, in the block it was reported in, once.
    const onChain = await sql<{ tx_hash: string; height: string }>(
      `select t.tx_hash, b.height from devnet_transfers t join devnet_blocks b on b.network = t.network and b.hash = t.block_hash where t.network = 'BEP20' and b.canonical`,
    );
    expect(new Set(onChain.map((t) => t.tx_hash)).size).toBe(onChain.length);
    const heightOf = new Map(onChain.map((t) => [t.tx_hash, Number(t.height)]));
    const pays = acked.filter((a): a is Extract<Acked, { op: 'pay' }> => a.op === 'pay');
    expect(pays.length).toBeGreaterThan(20);
    for (const p of pays) expect(heightOf.get(p.txHash)).toBe(p.blockHeight);
    // Every acknowledged broadcast is mined or still waiting, never both, never lost.
    const pending = new Set((await sql<{ tx_hash: string }>(`select tx_hash from devnet_mempool where network = 'BEP20'`)).map((r) => r.tx_hash));
    for (const b of acked.filter((a): a is Extract<Acked, { op: 'broadcast' }> => a.op === 'broadcast')) {
      expect(heightOf.has(b.txHash) !== pending.has(b.txHash)).toBe(true);
    }

    // A new process continues the same chain, and a watch from genesis sees every payment once.
    const chain = new DevnetAdapter({
      network: 'BEP20',
      codec: createAddressCodec('BEP20', { mnemonic: MNEMONIC }),
      clock: manualClock(),
      blockIntervalMs: 0,
      store: new PgDevnetStore(new RawSql(orm)),
    });
    try {
      await chain.init();
      expect(chain.head()).toEqual({ head: Number(head!.head_height), hash: head!.head_hash });
      const rec = new Recorder();
      const watched = new CountingSet(new Set([0, 1, 2, 3, 4].map((i) => chain.normalizeAddress(chain.deriveDepositAddress(i)))));
      const watch = chain.watch({ from: { height: 0, hash: blocks[0]!.hash }, watched, sink: rec.sink });
      await rec.until(() => rec.lastBlock() === chain.head().head, 20_000);
      await watch.stop();
      const seen = rec.of('transfer').map((t) => t.txHash);
      expect(new Set(seen).size).toBe(seen.length);
      for (const p of pays) expect(seen).toContain(p.txHash);
      expect(await chain.mine(1)).toMatchObject({ head: Number(head!.head_height) + 1 });
    } finally {
      await chain.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
