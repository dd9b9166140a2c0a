import { createHmac } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import pino from 'pino';
import { useMigratedDatabase } from '../../../test/support/database';
import { DerivationThread } from '../../chains/derivation/derivation-thread';
import { createAddressCodec } from '../../chains/codecs';
import { DevnetAdapter } from '../../chains/devnet/adapter';
import { EVM_DEPOSIT_ACCOUNT_PATH } from '../../chains/evm/codec';
import { mnemonicToSeed } from '../../chains/keys/bip39';
import { secp256k1Addon, type Secp256k1Addon } from '../../chains/keys/secp256k1-addon';
import { createChainAdapters } from '../../chains/registry';
import { manualClock } from '../../chains/devnet/testing';
import type { ChainAdapter } from '../../chains/types';
import type { NetworkCode } from '../../domain/networks';
import { createLogger } from '../../observability/logger';
import type { DerivedTwice } from '../../store/repos/address-pool';
import { PoolKeeper } from './pool-keeper';

const KEYS = { mnemonic: 'test test test test test test test test test test test junk' };

/**
 * The secp256k1 add-on with an off-by-one bug at one deposit index: asked for the child at
 * `index` of the EVM deposit chain it answers the child at index + 1. Every other key is right.
 */
function offByOneAt(index: number): Secp256k1Addon {
  const real = secp256k1Addon();
  const external = HDKey.fromMasterSeed(mnemonicToSeed(KEYS.mnemonic)).derive(`${EVM_DEPOSIT_ACCOUNT_PATH}/0`);
  const tweakOf = (i: number): Buffer => {
    const message = Buffer.alloc(37);
    message.set(external.publicKey!, 0);
    message.writeUInt32BE(i, 33);
    return createHmac('sha512', external.chainCode!).update(message).digest().subarray(0, 32);
  };
  const bad = tweakOf(index);
  return { ...real, publicKeyTweakAdd: (publicKey, tweak, compressed) => real.publicKeyTweakAdd(publicKey, bad.equals(tweak) ? tweakOf(index + 1) : tweak, compressed) };
}

/** PoolKeeper against a real PostgreSQL and real devnet adapters. */
describe('PoolKeeper', () => {
  const database = useMigratedDatabase('cp_pool_keeper');
  const clock = manualClock();
  const { adapters } = createChainAdapters({ networks: ['POLYGON', 'BEP20', 'ARBITRUM', 'SOLANA', 'TRC20', 'TON'], mode: 'devnet', keys: KEYS, clock, devnet: { blockIntervalMs: 0 } });

  function keeper(
    added: string[],
    options: { deriveElsewhere?: (network: NetworkCode, from: number, count: number) => Promise<DerivedTwice>; adapters?: ReadonlyMap<NetworkCode, ChainAdapter>; logger?: pino.Logger } = {},
  ): PoolKeeper {
    return new PoolKeeper({
      orm: database.orm,
      logger: options.logger ?? createLogger('silent'),
      clock,
      adapters: options.adapters ?? adapters,
      minFree: 30,
      batch: 70,
      onAdded: (_network, normalized) => added.push(...normalized),
      ...(options.deriveElsewhere ? { deriveElsewhere: options.deriveElsewhere } : {}),
    });
  }

  async function poolRows(network: NetworkCode): Promise<{ derivation_index: number; address: string; normalized: string }[]> {
    return database.orm.em.fork().execute(`select derivation_index, address, normalized from deposit_addresses where network = ? order by derivation_index`, [network]);
  }

  /** Error lines of a pino logger, parsed. */
  function capturingLogger(): { logger: pino.Logger; errors: Record<string, unknown>[] } {
    const errors: Record<string, unknown>[] = [];
    return { errors, logger: pino({ level: 'error' }, { write: (line: string) => void errors.push(JSON.parse(line) as Record<string, unknown>) }) };
  }

  describe('with a derivation thread', () => {
    it.each<NetworkCode>(['POLYGON', 'SOLANA'])("%s: the pool fills with exactly the adapter's addresses, each handed to the watcher", async (network) => {
      const thread = new DerivationThread(KEYS);
      const added: string[] = [];
      const pools = keeper(added, { deriveElsewhere: (n, from, count) => thread.derive(n, from, count) });
      try {
        await pools.ensure(network);
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
      expect(pools.status(network)).toEqual({ state: 'ok', error: null, haltedAt: null });
    });

    it('a thread that fails does not stop the refill: the chunks are derived on the daemon thread, the same addresses', async () => {
      const thread = new DerivationThread(KEYS);
      await thread.close(); // every job now fails with DerivationThreadError
      const added: string[] = [];
      await keeper(added, { deriveElsewhere: (n, from, count) => thread.derive(n, from, count) }).ensure('BEP20');
      const rows = await poolRows('BEP20');
      // BEP20 shares POLYGON's index space: it continues after the indexes POLYGON took above.
      const start = rows[0]!.derivation_index;
      expect(start).toBeGreaterThanOrEqual(70);
      expect(rows.map((r) => r.derivation_index)).toEqual(Array.from({ length: 70 }, (_, i) => start + i));
      const adapter = adapters.get('BEP20')!;
      for (const r of rows) expect(r.address).toBe(adapter.deriveDepositAddress(r.derivation_index));
      expect(added).toEqual(rows.map((r) => r.normalized));
    });

    it("a thread that derives other addresses (miswired to another network) stores none of them and stops that network's refill", async () => {
      const thread = new DerivationThread(KEYS);
      const added: string[] = [];
      const { logger, errors } = capturingLogger();
      let asked = 0;
      const [{ next }] = await database.orm.em.fork().execute<[{ next: number }]>(`select max(derivation_index) + 1 as next from deposit_addresses where index_space = 'evm'`);
      const pools = keeper(added, {
        logger,
        deriveElsewhere: (_network, from, count) => {
          asked++;
          return thread.derive('SOLANA', from, count);
        },
      });
      try {
        await pools.ensure('ARBITRUM');
        // Stopped for good: a later refill asks nothing.
        await pools.ensure('ARBITRUM', { urgent: true });
      } finally {
        await thread.close();
      }
      expect(asked).toBe(1);
      expect(await poolRows('ARBITRUM')).toEqual([]);
      expect(added).toEqual([]);
      expect(pools.status('ARBITRUM')).toMatchObject({ state: 'halted', error: expect.stringContaining(`ARBITRUM deposit address ${next + 49} differ (daemon thread)`), haltedAt: clock.now() });
      expect(errors).toEqual([expect.objectContaining({ network: 'ARBITRUM', derivationIndex: next + 49, checkedBy: 'daemon thread', msg: expect.stringContaining('address pool refill stopped') })]);
    });
  });

  describe('a forced mismatch: the second implementation derives one index wrong (an add-on injected through the codec constructor)', () => {
    const wrongAt = 60;
    const polygon = new DevnetAdapter({ network: 'POLYGON', codec: createAddressCodec('POLYGON', KEYS, { addon: offByOneAt(wrongAt) }), clock, blockIntervalMs: 0 });
    const mixed = new Map<NetworkCode, ChainAdapter>([...adapters, ['POLYGON', polygon]]);

    it("keeps that address out of the pool, stops that network's refill with an error log and a halted state; other networks refill", async () => {
      // The whole EVM index space (POLYGON's indexes follow BEP20's and ARBITRUM's) and TRC20 start empty.
      await database.orm.em.fork().execute(`delete from deposit_addresses where index_space = 'evm' or network = 'TRC20'`);
      const added: string[] = [];
      const { logger, errors } = capturingLogger();
      const pools = keeper(added, { adapters: mixed, logger });
      // 70 addresses in chunks of 50: 0..49 agree and are stored, the chunk 50..69 holds the wrong index.
      await pools.ensure('POLYGON');
      const rows = await poolRows('POLYGON');
      expect(rows.map((r) => r.derivation_index)).toEqual(Array.from({ length: 50 }, (_, i) => i));
      for (const r of rows) expect(r.address).toBe(polygon.deriveDepositAddress(r.derivation_index));
      expect(added).toEqual(rows.map((r) => r.normalized));
      const derived = polygon.deriveDepositAddress(wrongAt);
      const checked = (await polygon.crossCheckDepositAddresses(wrongAt, 1))[0];
      expect(checked).toBe(polygon.deriveDepositAddress(wrongAt + 1));
      expect(pools.status('POLYGON')).toEqual({
        state: 'halted',
        error: `two derivations of POLYGON deposit address ${wrongAt} differ (second implementation): ${derived} != ${checked}`,
        haltedAt: clock.now(),
      });
      expect(errors).toEqual([expect.objectContaining({ level: 50, network: 'POLYGON', derivationIndex: wrongAt, derived, check: checked, addedBeforeHalt: 50 })]);

      // Nothing derives it later either: the pool is down to its 50 checked addresses, below the mark, and stays so.
      await pools.ensure('POLYGON', { urgent: true });
      expect((await poolRows('POLYGON')).length).toBe(50);
      expect(errors).toHaveLength(1);

      // The other networks are not affected.
      await pools.ensure('TRC20');
      expect((await poolRows('TRC20')).length).toBe(70);
      expect(pools.status('TRC20')).toEqual({ state: 'ok', error: null, haltedAt: null });
      expect(pools.status('TON')).toEqual({ state: 'none', error: null, haltedAt: null });
    });
  });
  describe('networks that derive one address (the EVM family: one index space)', () => {
    it("refills of BEP20, POLYGON and ARBITRUM at once, by two keepers (two daemons): every index, every address, in one network's pool only", async () => {
      await database.orm.em.fork().execute(`delete from deposit_addresses where index_space = 'evm'`);
      const added = new Map<NetworkCode, string[]>();
      const one = (): PoolKeeper =>
        new PoolKeeper({
          orm: database.orm,
          logger: createLogger('silent'),
          clock,
          adapters,
          minFree: 30,
          batch: 70,
          onAdded: (network, normalized) => added.set(network, [...(added.get(network) ?? []), ...normalized]),
        });
      const [a, b] = [one(), one()];
      const evm: NetworkCode[] = ['BEP20', 'POLYGON', 'ARBITRUM'];
      await Promise.all([...evm.map((n) => a.ensure(n)), ...evm.map((n) => b.ensure(n))]);
      // A network whose refill lost every insert to the other keeper refills again until it has its mark.
      for (const n of evm) await a.ensure(n, { urgent: true });
      const rows = await database.orm.em
        .fork()
        .execute<{ network: string; derivation_index: number; normalized: string }[]>(`select network, derivation_index, normalized from deposit_addresses where index_space = 'evm'`);
      expect(new Set(rows.map((r) => r.derivation_index)).size).toBe(rows.length);
      expect(new Set(rows.map((r) => r.normalized)).size).toBe(rows.length);
      for (const n of evm) expect(rows.filter((r) => r.network === n).length).toBeGreaterThanOrEqual(30);
      // What the keepers handed to the watchers is what was stored, each address once, for its own network.
      for (const n of evm)
        expect([...(added.get(n) ?? [])].sort()).toEqual(
          rows
            .filter((r) => r.network === n)
            .map((r) => r.normalized)
            .sort(),
        );
    });
  });
});
