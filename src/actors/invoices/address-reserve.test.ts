import { useMigratedDatabase } from '../../../test/support/database';
import type { Clock } from '../../domain/clock';
import { RawSql, type Query } from '../../store/raw-sql';
import { AddressReserve } from './address-reserve';

/** AddressReserve against a real PostgreSQL: reservations ahead of need, never an address twice. */
describe('AddressReserve', () => {
  const database = useMigratedDatabase('cp_address_reserve');
  let sql: RawSql;
  const clock: Clock = { now: () => new Date('2026-11-25T10:00:00.000Z'), setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout) };

  beforeAll(async () => {
    sql = new RawSql(database.orm);
    const rows = Array.from({ length: 40 }, (_, i) => `('POLYGON', 'evm', ${i}, '0x${i.toString(16).padStart(40, '0')}', '0x${i.toString(16).padStart(40, '0')}', 'free', now())`);
    await sql.query(`insert into deposit_addresses (network, index_space, derivation_index, address, normalized, state, created_at) values ${rows.join(', ')}`);
  });

  /** The real query, counting reservation statements and able to hold them until released. */
  function countingQuery(): { query: Query; reservations: () => number; hold: () => () => void } {
    let reservations = 0;
    let gate: Promise<void> | null = null;
    const query: Query = async (text, values, name) => {
      if (name === 'chainpay_reserve_addresses') {
        reservations++;
        if (gate) await gate;
      }
      return sql.query(text, values, name);
    };
    return {
      query,
      reservations: () => reservations,
      hold: () => {
        let release = (): void => undefined;
        gate = new Promise<void>((r) => (release = r));
        return () => {
          gate = null;
          release();
        };
      },
    };
  }

  it('reserves the next batch in the background once half is left, so takers do not wait for it', async () => {
    const counting = countingQuery();
    const reserve = new AddressReserve({ query: counting.query, clock, batch: 8 });
    const first = await reserve.take('POLYGON');
    expect(counting.reservations()).toBe(1);
    expect(reserve.size('POLYGON')).toBe(7);
    // Hold the next reservation: the takes down to empty must not wait for it.
    const release = counting.hold();
    const taken = [first];
    for (let i = 0; i < 7; i++) taken.push((await reserve.take('POLYGON'))!);
    expect(counting.reservations()).toBe(2); // started when 3 were left (< 8 / 2), once
    expect(reserve.size('POLYGON')).toBe(0);
    release();
    // The held batch lands; the next take uses it without another round trip.
    const ninth = await reserve.take('POLYGON');
    taken.push(ninth!);
    expect(counting.reservations()).toBe(2);
    expect(new Set(taken.map((a) => a!.derivationIndex)).size).toBe(9);
    const states = await sql.query<{ state: string; n: string }>(`select state, count(*)::text as n from deposit_addresses where network = 'POLYGON' group by state order by state`);
    expect(states).toEqual([
      { state: 'free', n: '24' },
      { state: 'reserved', n: '16' },
    ]);
  });

  it('concurrent takers of an empty list share one round trip; a dry pool gives null', async () => {
    const rows = Array.from({ length: 24 }, (_, i) => `('BEP20', 'evm', 1000 + ${i}, '0x${i.toString(16).padStart(40, 'b')}', '0x${i.toString(16).padStart(40, 'b')}', 'free', now())`);
    await sql.query(`insert into deposit_addresses (network, index_space, derivation_index, address, normalized, state, created_at) values ${rows.join(', ')}`);
    const counting = countingQuery();
    const reserve = new AddressReserve({ query: counting.query, clock, batch: 32 });
    // 24 free addresses: one reservation gets them all for 24 of the 26 takers; the other two find
    // the pool dry (null). One round trip each, not one per taker: the first, the background one
    // started below half a batch, and the one that finds nothing left (some may coincide).
    const taken = await Promise.all(Array.from({ length: 26 }, () => reserve.take('BEP20')));
    const got = taken.filter((a) => a !== null);
    expect(got).toHaveLength(24);
    expect(new Set(got.map((a) => a!.derivationIndex)).size).toBe(24);
    expect(counting.reservations()).toBeLessThanOrEqual(3);
  });
});
