import { useMigratedDatabase } from '../../../test/support/database';
import { DerivationThread } from '../../chains/derivation/derivation-thread';
import { createChainAdapters } from '../../chains/registry';
import { manualClock } from '../../chains/devnet/testing';
import type { NetworkCode } from '../../domain/networks';
import { createLogger } from '../../observability/logger';
import { PoolKeeper } from './pool-keeper';

const KEYS = { mnemonic: 'test test test test test test test test test test test junk' };

/** PoolKeeper refills through the derivation thread, against a real PostgreSQL and real devnet adapters. */
describe('PoolKeeper with a derivation thread', () => {
  const database = useMigratedDatabase('cp_pool_keeper');
  const clock = manualClock();
  const { adapters } = createChainAdapters({ networks: ['POLYGON', 'BEP20', 'ARBITRUM', 'SOLANA'], mode: 'devnet', keys: KEYS, clock, devnet: { blockIntervalMs: 0 } });

  function keeper(thread: DerivationThread, added: string[], deriveElsewhere = (network: NetworkCode, from: number, count: number) => thread.derive(network, from, count)): PoolKeeper {
    return new PoolKeeper({
      orm: database.orm,
      logger: createLogger('silent'),
      clock,
      adapters,
      minFree: 30,
      batch: 70,
      onAdded: (_network, normalized) => added.push(...normalized),
      deriveElsewhere,
    });
  }

  async function poolRows(network: NetworkCode): Promise<{ derivation_index: number; address: string; normalized: string }[]> {
    return database.orm.em.fork().execute(`select derivation_index, address, normalized from deposit_addresses where network = ? order by derivation_index`, [network]);
  }

  it.each<NetworkCode>(['POLYGON', 'SOLANA'])('%s: the pool fills with exactly the adapter\'s addresses, each handed to the watcher', async (network) => {
    const thread = new DerivationThread(KEYS);
    const added: string[] = [];
    try {
      await keeper(thread, added).ensure(network);
    } finally {
      await thread.close();
    }
    const rows = await poolRows(network);
    expect(rows.map((r) => r.derivation_index)).toEqual(Array.from({ length: 70 }, (_, i) => i));
    const adapter = adapters.get(network)!;
    for (const r of rows) {
      expect(r.address).toBe(adapter.deriveDepositAddress(r.derivation_index));
      expect(r.normalized).toBe(adapter.normalizeAddress(r.address));
    }
    expect(added).toEqual(rows.map((r) => r.normalized));
  });

  it('a thread that fails does not stop the refill: the chunks are derived on the daemon thread, the same addresses', async () => {
    const thread = new DerivationThread(KEYS);
    await thread.close(); // every job now fails with DerivationThreadError
    const added: string[] = [];
    await keeper(thread, added).ensure('BEP20');
    const rows = await poolRows('BEP20');
    expect(rows.map((r) => r.derivation_index)).toEqual(Array.from({ length: 70 }, (_, i) => i));
    const adapter = adapters.get('BEP20')!;
    for (const r of rows) expect(r.address).toBe(adapter.deriveDepositAddress(r.derivation_index));
    expect(added).toEqual(rows.map((r) => r.normalized));
  });

  it('a thread that derives other addresses stores none of them; the network is derived on the daemon thread from then on', async () => {
    // A real thread, miswired: asked for POLYGON it answers SOLANA's addresses.
    const thread = new DerivationThread(KEYS);
    const added: string[] = [];
    let asked = 0;
    try {
      await keeper(thread, added, (_network, from, count) => {
        asked++;
        return thread.derive('SOLANA', from, count);
      }).ensure('ARBITRUM');
    } finally {
      await thread.close();
    }
    // 70 addresses are two chunks: the first was refused and the second never asked the thread.
    expect(asked).toBe(1);
    const rows = await poolRows('ARBITRUM');
    expect(rows.map((r) => r.derivation_index)).toEqual(Array.from({ length: 70 }, (_, i) => i));
    const adapter = adapters.get('ARBITRUM')!;
    for (const r of rows) expect(r.address).toBe(adapter.deriveDepositAddress(r.derivation_index));
    expect(added).toEqual(rows.map((r) => r.normalized));
  });
});
