import { useMigratedDatabase } from '../../../test/support/database';
import type { AddressCodec } from '../../chains/codec';
import { EvmCodec } from '../../chains/evm/codec';
import { SolanaCodec } from '../../chains/solana/codec';
import { TronCodec } from '../../chains/tron/codec';
import { DerivationThread } from '../../chains/derivation/derivation-thread';
import { allPoolAddresses, DERIVE_STEP, DerivedAddressMismatchError, refillPool, type AddressDeriver } from './address-pool';

const JUNK = 'test test test test test test test test test test test junk';

/** A codec as the pool sees it (as an adapter exposes it), recording each derivation and each pace, in order. */
function recording(codec: AddressCodec): { deriver: AddressDeriver; log: string[]; pace: () => Promise<void> } {
  const log: string[] = [];
  const range = codec.deriveDepositAddresses?.bind(codec);
  return {
    log,
    deriver: {
      deriveDepositAddress: (index) => {
        log.push(`derive ${index}`);
        return codec.deriveDepositAddress(index);
      },
      deriveDepositAddresses: range
        ? (from, count) => {
            log.push(`derive ${from}+${count}`);
            return range(from, count);
          }
        : undefined,
      normalizeAddress: (address) => codec.normalizeAddress(address),
    },
    pace: async () => void log.push('pace'),
  };
}

describe('refillPool: derives ranges of DERIVE_STEP where the deriver has them, paced between steps', () => {
  const database = useMigratedDatabase('cp_address_pool');
  const now = new Date('2026-11-23T10:00:00.000Z');

  it.each([
    ['BEP20', new EvmCodec({ mnemonic: JUNK })],
    ['TRC20', new TronCodec({ mnemonic: JUNK })],
  ])('%s: the rows hold exactly deriveDepositAddress(i) at index i, continuing after the last index', async (network, codec) => {
    const em = database.orm.em.fork();
    const first = recording(codec);
    const added = await refillPool(em, network, first.deriver, 40, now, first.pace);
    expect(DERIVE_STEP).toBe(8);
    expect(first.log).toEqual(['derive 0+8', 'pace', 'derive 8+8', 'pace', 'derive 16+8', 'pace', 'derive 24+8', 'pace', 'derive 32+8', 'pace']);
    const second = recording(codec);
    await refillPool(em, network, second.deriver, 11, now, second.pace);
    expect(second.log).toEqual(['derive 40+8', 'pace', 'derive 48+3', 'pace']);

    const rows = await em.execute<{ derivation_index: number; address: string; normalized: string; state: string }[]>(
      `select derivation_index, address, normalized, state from deposit_addresses where network = ? order by derivation_index`,
      [network],
    );
    expect(rows.map((r) => r.derivation_index)).toEqual(Array.from({ length: 51 }, (_, i) => i));
    for (const r of rows) {
      expect(r.address).toBe(codec.deriveDepositAddress(r.derivation_index));
      expect(r.normalized).toBe(codec.normalizeAddress(r.address));
      expect(r.state).toBe('free');
    }
    expect(added).toEqual(rows.slice(0, 40).map((r) => r.normalized));
    expect((await allPoolAddresses(em, network)).sort()).toEqual(rows.map((r) => r.normalized).sort());
  });

  it('a codec without ranges (SOLANA) is derived and paced one address at a time, as before', async () => {
    const codec = new SolanaCodec({ mnemonic: JUNK });
    const { deriver, log, pace } = recording(codec);
    const added = await refillPool(database.orm.em.fork(), 'SOLANA', deriver, 3, now, pace);
    expect(log).toEqual(['derive 0', 'pace', 'derive 1', 'pace', 'derive 2', 'pace']);
    expect(added).toEqual([0, 1, 2].map((i) => codec.normalizeAddress(codec.deriveDepositAddress(i))));
  });

  it('derived elsewhere (the derivation thread): one call per chunk, no pacing, the same rows', async () => {
    const codec = new TronCodec({ mnemonic: JUNK });
    const thread = new DerivationThread({ mnemonic: JUNK });
    const log: string[] = [];
    try {
      const deriver: AddressDeriver = {
        deriveDepositAddress: (index) => codec.deriveDepositAddress(index),
        normalizeAddress: (address) => codec.normalizeAddress(address),
        deriveDepositAddressesElsewhere: (from, count) => {
          log.push(`elsewhere ${from}+${count}`);
          return thread.derive('TRC20', from, count);
        },
      };
      const em = database.orm.em.fork();
      // Continues after the rows of the TRC20 test above (0..50).
      const added = await refillPool(em, 'TRC20', deriver, 30, now, async () => void log.push('pace'));
      expect(log).toEqual(['elsewhere 51+30']);
      const rows = await em.execute<{ derivation_index: number; address: string }[]>(
        `select derivation_index, address from deposit_addresses where network = 'TRC20' and derivation_index >= 51 order by derivation_index`,
      );
      expect(rows.map((r) => r.derivation_index)).toEqual(Array.from({ length: 30 }, (_, k) => 51 + k));
      for (const r of rows) expect(r.address).toBe(codec.deriveDepositAddress(r.derivation_index));
      expect(added).toEqual(rows.map((r) => codec.normalizeAddress(r.address)));
    } finally {
      await thread.close();
    }
  });

  it('addresses derived elsewhere that differ from this thread\'s (other keys) are refused: nothing is inserted', async () => {
    const codec = new EvmCodec({ mnemonic: JUNK });
    const other = new EvmCodec({ mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about' });
    const deriver: AddressDeriver = {
      deriveDepositAddress: (index) => codec.deriveDepositAddress(index),
      normalizeAddress: (address) => codec.normalizeAddress(address),
      deriveDepositAddressesElsewhere: async (from, count) => other.deriveDepositAddresses(from, count),
    };
    const em = database.orm.em.fork();
    await expect(refillPool(em, 'ARBITRUM', deriver, 10, now)).rejects.toBeInstanceOf(DerivedAddressMismatchError);
    expect(await allPoolAddresses(em, 'ARBITRUM')).toEqual([]);
  });

  it('a refill of nothing derives and inserts nothing', async () => {
    const { deriver, log, pace } = recording(new EvmCodec({ mnemonic: JUNK }));
    await expect(refillPool(database.orm.em.fork(), 'POLYGON', deriver, 0, now, pace)).resolves.toEqual([]);
    expect(log).toEqual([]);
  });
});
