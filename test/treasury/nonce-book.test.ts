import { randomUUID } from 'node:crypto';
import { RawSql } from '../../src/store/raw-sql';
import { highestOpenSequence } from '../../src/store/repos/payout-rows';
import { insertSweep, saveSnapshot, storeTx, closeSweep } from '../../src/treasury/sweep-rows';
import { useMigratedDatabase } from '../support/database';

const WALLET = '31337:0x90f8bf6a479f320ead074411a4b0e7944ea8c9c1';

/**
 * Gas top-ups take their nonce from the payouts' durable book: a top-up stored signed (not yet
 * mined) reserves its nonce across restarts like a stored payout does; once the sweep is past its
 * top-up (mined: the node's count covers it) or closed, it no longer does. One open sweep per address.
 */
describe('sweeps in the hot wallet nonce book', () => {
  const db = useMigratedDatabase('cp_sweepbook');

  it('a stored top-up reserves its nonce until the sweep moves past it', async () => {
    const q = new RawSql(db.orm).query;
    const now = new Date();
    const base = { network: 'POLYGON', derivationIndex: 1, target: 'hot' as const, destination: '0xhot', amount: '5', gasTopUp: '0.001', manual: false };
    const row = await insertSweep(q, { ...base, id: randomUUID(), address: '0xa1' }, now);
    expect(row).not.toBeNull();
    // The same address cannot get a second open sweep.
    expect(await insertSweep(q, { ...base, id: randomUUID(), address: '0xa1' }, now)).toBeNull();
    expect(await highestOpenSequence(q, WALLET)).toBeNull();
    const tx = { txHash: '0x01', raw: '0x02', meta: { nonce: 7 }, wallet: WALLET, sequence: 7 };
    expect(await storeTx(q, row!.id, 'topup', tx, now)).toEqual(tx);
    // Stored once: a second signature (a re-run after a crash) gets the first one back.
    expect(await storeTx(q, row!.id, 'topup', { ...tx, txHash: '0x03', sequence: 8 }, now)).toEqual(tx);
    expect(await highestOpenSequence(q, WALLET)).toBe(7); // even before its state was saved (crash window)
    await saveSnapshot(q, row!.id, 'topUp.sending', {}, null, now);
    expect(await highestOpenSequence(q, WALLET)).toBe(7);
    expect(await highestOpenSequence(q, WALLET, row!.id)).toBeNull(); // its own re-signing leaves it out
    await saveSnapshot(q, row!.id, 'transfer.signing', {}, null, now);
    expect(await highestOpenSequence(q, WALLET)).toBeNull();
    await closeSweep(q, row!.id, 'completed', now);
    expect(await insertSweep(q, { ...base, id: randomUUID(), address: '0xa1' }, now)).not.toBeNull(); // swept again later
  });
});
