import { randomUUID } from 'node:crypto';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, PublicKey } from '@solana/web3.js';
import pino from 'pino';
import { EXPIRED_WATCH_SQL, ExpiredPayoutWatch, extraPayoutAccount } from '../../src/actors/withdrawals/expired-payout-watch';
import { SolanaAdapter } from '../../src/chains/solana/adapter';
import { SolanaCodec } from '../../src/chains/solana/codec';
import { SOLANA_USDT_MINT } from '../../src/chains/solana/config';
import { EXPIRY_MARGIN_BLOCKS } from '../../src/chains/solana/payout-status';
import type { ChainAdapter, SignedPayout } from '../../src/chains/types';
import type { Clock } from '../../src/domain/clock';
import type { NetworkCode } from '../../src/domain/networks';
import { RawSql } from '../../src/store/raw-sql';
import { useMigratedDatabase } from '../support/database';
import { AmnesiacNode } from './support/amnesiac-node';
import { Payer, USDT } from './support/payer';
import { SolanaRpcServer } from './support/rpc-server';
import { SvmChain } from './support/svm-chain';

/**
 * A provider node that lost a finalized payout from its history fools the positive proof: the
 * payout is declared expired, signed again, and both versions pay. The host's watch of expired
 * versions finds the first one once an answering node has it again, alerts and books it, once.
 */
describe('the expired payout watch on SOLANA', () => {
  const db = useMigratedDatabase('cp_solwatchx');
  let chain: SvmChain;
  let server: SolanaRpcServer;
  let amnesiac: AmnesiacNode;
  let adapter: SolanaAdapter;
  const now = new Date();
  const clock: Clock = { now: () => now, setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout) };
  const mnemonic = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
  const hot = new PublicKey(new SolanaCodec({ mnemonic }).hotWallet().address);
  const errors: Record<string, unknown>[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(JSON.parse(line) as Record<string, unknown>) });

  beforeAll(async () => {
    chain = new SvmChain();
    server = new SolanaRpcServer(chain);
    await server.listen();
    amnesiac = new AmnesiacNode(chain, server);
    const payer = new Payer(chain, server.url);
    chain.airdrop(hot, 2);
    await payer.mint(hot, 100_000_000n);
    chain.advance(1 + chain.finalityLag);
    adapter = new SolanaAdapter({
      network: 'SOLANA',
      codec: new SolanaCodec({ mnemonic }),
      options: { SOLANA_RPC_URL: server.url, SOLANA_TOKEN_MINT: SOLANA_USDT_MINT, SOLANA_POLL_INTERVAL_MS: 20, SOLANA_MAX_SLOT_RANGE: 1000, SOLANA_MAX_PRIORITY_FEE: 1_000_000 },
    });
    await adapter.init();
  });

  afterAll(async () => {
    await adapter?.close();
    await server?.close();
  });

  /** A closed withdrawal as the host leaves it after one re-signing (payout-steps.ts stamped()). */
  async function insertClosed(uuid: string, first: SignedPayout, second: SignedPayout, signedAt: Date): Promise<void> {
    const meta = { ...second.meta, signed_at_ms: signedAt.getTime(), latest_tx_hash: second.txHash, expired_tx_hashes: first.txHash };
    await new RawSql(db.orm).query(
      `insert into withdrawals (uuid, merchant_id, status, network, address, amount, network_fee, net_payout, tx_hash, signed_raw, signed_meta, open, completed_at, created_at, updated_at)
       values ($1, $2, 'completed', 'SOLANA', $3, 2, 1, 1, $4, $5, $6::jsonb, false, $7, $7, $7)`,
      [uuid, randomUUID(), second.meta.to, second.txHash, second.raw, JSON.stringify(meta), signedAt.toISOString()],
    );
  }

  function watch(): ExpiredPayoutWatch {
    const sql = new RawSql(db.orm);
    return new ExpiredPayoutWatch({ query: sql.query, transaction: (fn) => sql.transaction(fn), logger, clock, adapters: new Map<NetworkCode, ChainAdapter>([['SOLANA', adapter]]) });
  }

  it('a version declared expired that paid after all: an alert and a journal, booked once; outside the day nothing is asked', async () => {
    const payee = Keypair.generate().publicKey.toBase58();
    const first = await adapter.signPayout({ id: 'w-x', to: payee, amount: '1' });
    await adapter.broadcastPayout(first);
    chain.finalize(first.txHash);
    amnesiac.forgotten.add(first.txHash);
    while (chain.at('finalized').blockHeight < Number(first.meta.lastValidBlockHeight) + EXPIRY_MARGIN_BLOCKS) chain.produce();
    expect(await adapter.payoutStatus(first)).toEqual({ state: 'expired' }); // the proof, fooled by a node with a hole in its history
    const second = await adapter.signPayout({ id: 'w-x', to: payee, amount: '1', attempt: 1 });
    await adapter.broadcastPayout(second);
    chain.finalize(second.txHash);
    expect(chain.tokenAmount(getAssociatedTokenAddressSync(USDT.mint, new PublicKey(payee)))).toBe(2_000_000n); // paid twice

    const uuid = randomUUID();
    await insertClosed(uuid, first, second, new Date(now.getTime() - 60_000));
    const stale = randomUUID();
    await insertClosed(stale, first, second, new Date(now.getTime() - 25 * 3600_000)); // re-signed over a day ago: no longer watched

    const w = watch();
    expect(await w.runOnce()).toEqual([]); // the node still answers without it: nothing yet, looked up again next pass
    amnesiac.forgotten.clear();
    expect(await w.runOnce()).toEqual([{ withdrawalUuid: uuid, network: 'SOLANA', txHash: first.txHash, reverted: false, booked: true }]);
    expect(await w.runOnce()).toEqual([{ withdrawalUuid: uuid, network: 'SOLANA', txHash: first.txHash, reverted: false, booked: false }]);

    const alerts = errors.filter((e) => e.alert === 'expired_payout_landed');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ withdrawalUuid: uuid, network: 'SOLANA', txHash: first.txHash, paidTxHash: second.txHash, amount: '1' });
    const q = new RawSql(db.orm).query;
    const entries = await q<{ account: string; amount: string }>(
      `select e.account, e.amount::text as amount from ledger_entries e join journals j on j.id = e.journal_id where j.reference = $1 order by e.account`,
      [`withdrawal:${uuid}:extra_payout:${first.txHash}`],
    );
    expect(entries.map((e) => [e.account, Number(e.amount)])).toEqual([
      ['chain:SOLANA:hot', 1],
      [extraPayoutAccount('SOLANA'), -1],
    ]);
  });

  it('the pass reads the partial index of re-signed withdrawals (migration 20261129100000), not the table', async () => {
    const plan = await new RawSql(db.orm).transaction(async (q) => {
      await q('set local enable_seqscan = off');
      return q<{ 'QUERY PLAN': unknown }>(`explain (format json) ${EXPIRED_WATCH_SQL}`, [0, ['SOLANA']]);
    });
    expect(JSON.stringify(plan)).toContain('withdrawals_expired_versions_index');
  });

  it("while open, a withdrawal's earlier version found landed is the payout: mined with its signature", async () => {
    const payee = Keypair.generate().publicKey.toBase58();
    const first = await adapter.signPayout({ id: 'w-y', to: payee, amount: '1' });
    await adapter.broadcastPayout(first);
    chain.finalize(first.txHash);
    const second = await adapter.signPayout({ id: 'w-y', to: payee, amount: '1', attempt: 1 });
    const stored: SignedPayout = { ...second, meta: { ...second.meta, expired_tx_hashes: first.txHash, latest_tx_hash: second.txHash } };
    expect(await adapter.payoutStatus(stored)).toMatchObject({ state: 'mined', txHash: first.txHash });
  });
});
