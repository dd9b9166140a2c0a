import { useMigratedDatabase } from '../../../test/support/database';
import type { AddressCodec } from '../../chains/codec';
import { EvmCodec } from '../../chains/evm/codec';
import { SolanaCodec } from '../../chains/solana/codec';
import { TronCodec } from '../../chains/tron/codec';
import { DerivationThread } from '../../chains/derivation/derivation-thread';
import { builtInFamilies } from '../../chains/families';
import type { NetworkCode } from '../../domain/networks';
import { allPoolAddresses, DERIVE_STEP, DerivedAddressMismatchError, refillPool, type AddressDeriver } from './address-pool';

const JUNK = 'test test test test test test test test test test test junk';
const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** A codec as the pool sees it (as an adapter exposes it), recording each derivation, each check and each pace, in order. */
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
      crossCheckDepositAddresses: (from, count) => {
        log.push(`check ${from}+${count}`);
        return codec.crossCheckDepositAddresses(from, count);
      },
      normalizeAddress: (address) => codec.normalizeAddress(address),
    },
    pace: async () => void log.push('pace'),
  };
}

/** Where a refill of `network` stores: its pool in its family's index space. */
const place = (network: string) => ({ network, indexSpace: builtInFamilies().indexSpace(network as NetworkCode) });

type Row = { derivation_index: number; address: string; normalized: string; state: string };

describe('refillPool: every address derived twice, stored only where both derivations agree', () => {
  const database = useMigratedDatabase('cp_address_pool');
  const now = new Date('2026-11-23T10:00:00.000Z');
  const rowsOf = (network: string): Promise<Row[]> =>
    database.orm.em.fork().execute<Row[]>(`select derivation_index, address, normalized, state from deposit_addresses where network = ? order by derivation_index`, [network]);

  it.each([
    ['BEP20', new EvmCodec({ mnemonic: JUNK })],
    ['TRC20', new TronCodec({ mnemonic: JUNK })],
  ])('%s: ranges of DERIVE_STEP, each checked then paced; the rows hold exactly deriveDepositAddress(i), continuing after the last index', async (network, codec) => {
    const em = database.orm.em.fork();
    const first = recording(codec);
    const added = await refillPool(em, place(network), first.deriver, 6, now, first.pace);
    expect(DERIVE_STEP).toBe(2);
    expect(first.log).toEqual(['derive 0+2', 'check 0+2', 'pace', 'derive 2+2', 'check 2+2', 'pace', 'derive 4+2', 'check 4+2', 'pace']);
    const second = recording(codec);
    await refillPool(em, place(network), second.deriver, 3, now, second.pace);
    expect(second.log).toEqual(['derive 6+2', 'check 6+2', 'pace', 'derive 8+1', 'check 8+1', 'pace']);

    const rows = await rowsOf(network);
    expect(rows.map((r) => r.derivation_index)).toEqual(Array.from({ length: 9 }, (_, i) => i));
    for (const r of rows) {
      expect(r.address).toBe(codec.deriveDepositAddress(r.derivation_index));
      expect(r.normalized).toBe(codec.normalizeAddress(r.address));
      expect(r.state).toBe('free');
    }
    expect(added).toEqual(rows.slice(0, 6).map((r) => r.normalized));
    expect((await allPoolAddresses(em, place(network).indexSpace)).sort()).toEqual(rows.map((r) => r.normalized).sort());
  });

  it('a codec without ranges (SOLANA) is derived, checked and paced one address at a time', async () => {
    const codec = new SolanaCodec({ mnemonic: JUNK });
    const { deriver, log, pace } = recording(codec);
    const added = await refillPool(database.orm.em.fork(), place('SOLANA'), deriver, 3, now, pace);
    expect(log).toEqual(['derive 0', 'check 0+1', 'pace', 'derive 1', 'check 1+1', 'pace', 'derive 2', 'check 2+1', 'pace']);
    expect(added).toEqual([0, 1, 2].map((i) => codec.normalizeAddress(codec.deriveDepositAddress(i))));
  });

  it('a second implementation that differs at one index stops the refill before anything of it is stored', async () => {
    const codec = new EvmCodec({ mnemonic: JUNK });
    const { deriver } = recording(codec);
    // POLYGON shares BEP20's index space: its next index is 9 (after the BEP20 test's 0..8). The
    // check is right everywhere but at index 12, where it answers index 13's address.
    const wrong: AddressDeriver = {
      ...deriver,
      crossCheckDepositAddresses: async (from, count) => (await codec.crossCheckDepositAddresses(from, count)).map((a, k) => (from + k === 12 ? codec.deriveDepositAddress(13) : a)),
    };
    const em = database.orm.em.fork();
    const refused = refillPool(em, place('POLYGON'), wrong, 6, now);
    await expect(refused).rejects.toBeInstanceOf(DerivedAddressMismatchError);
    await expect(refused).rejects.toMatchObject({
      network: 'POLYGON',
      derivationIndex: 12,
      details: { derived: codec.deriveDepositAddress(12), check: codec.deriveDepositAddress(13), checkedBy: 'second implementation' },
    });
    // The steps before the bad one agreed, but the chunk is stored whole or not at all.
    expect(await rowsOf('POLYGON')).toEqual([]);
  });

  it('derived elsewhere (the derivation thread): one call per chunk, both derivations compared, the last address checked here; the same rows', async () => {
    const codec = new TronCodec({ mnemonic: JUNK });
    const thread = new DerivationThread({ mnemonic: JUNK });
    const { deriver, log } = recording(codec);
    try {
      const threaded: AddressDeriver = {
        ...deriver,
        deriveDepositAddressesElsewhere: (from, count) => {
          log.push(`elsewhere ${from}+${count}`);
          return thread.derive('TRC20', from, count);
        },
      };
      const em = database.orm.em.fork();
      // Continues after the rows of the TRC20 test above (0..8).
      const added = await refillPool(em, place('TRC20'), threaded, 30, now, async () => void log.push('pace'));
      expect(log).toEqual(['elsewhere 9+30', 'check 38+1']);
      const rows = (await rowsOf('TRC20')).filter((r) => r.derivation_index >= 9);
      expect(rows.map((r) => r.derivation_index)).toEqual(Array.from({ length: 30 }, (_, k) => 9 + k));
      for (const r of rows) expect(r.address).toBe(codec.deriveDepositAddress(r.derivation_index));
      expect(added).toEqual(rows.map((r) => codec.normalizeAddress(r.address)));
    } finally {
      await thread.close();
    }
  });

  it("a thread whose two derivations differ, or whose key material is not this thread's, stores nothing", async () => {
    const codec = new EvmCodec({ mnemonic: JUNK });
    const other = new EvmCodec({ mnemonic: ABANDON });
    const { deriver } = recording(codec);
    const em = database.orm.em.fork();
    const disagreeing: AddressDeriver = {
      ...deriver,
      deriveDepositAddressesElsewhere: async (from, count) => ({ addresses: codec.deriveDepositAddresses(from, count), check: [...codec.deriveDepositAddresses(from, count - 1), 'not the address'] }),
    };
    // ARBITRUM continues the EVM index space after BEP20's 0..8: its chunk is 9..18.
    await expect(refillPool(em, place('ARBITRUM'), disagreeing, 10, now)).rejects.toMatchObject({ derivationIndex: 18, details: { check: 'not the address', checkedBy: 'second implementation' } });
    // Both of the thread's implementations agree, on another mnemonic's addresses.
    const foreign: AddressDeriver = {
      ...deriver,
      deriveDepositAddressesElsewhere: async (from, count) => ({ addresses: other.deriveDepositAddresses(from, count), check: await other.crossCheckDepositAddresses(from, count) }),
    };
    await expect(refillPool(em, place('ARBITRUM'), foreign, 10, now)).rejects.toMatchObject({
      derivationIndex: 18,
      details: { derived: other.deriveDepositAddress(18), check: codec.deriveDepositAddress(18), checkedBy: 'daemon thread' },
    });
    // Fewer addresses than asked is a difference too.
    const short: AddressDeriver = {
      ...deriver,
      deriveDepositAddressesElsewhere: async (from, count) => ({ addresses: codec.deriveDepositAddresses(from, count - 1), check: codec.deriveDepositAddresses(from, count - 1) }),
    };
    await expect(refillPool(em, place('ARBITRUM'), short, 10, now)).rejects.toMatchObject({ derivationIndex: 18, details: { derived: undefined } });
    expect(await rowsOf('ARBITRUM')).toEqual([]);
  });

  it('a refill of nothing derives and inserts nothing', async () => {
    const { deriver, log, pace } = recording(new EvmCodec({ mnemonic: JUNK }));
    await expect(refillPool(database.orm.em.fork(), place('ARBITRUM'), deriver, 0, now, pace)).resolves.toEqual([]);
    expect(log).toEqual([]);
  });
});
