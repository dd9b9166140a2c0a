import type { ChainCursor } from '../types';
import { decodeCursor, encodeCursor, tonConfirmations } from './cursor';

describe('TON cursor { seqno, lt, hash } as JSON', () => {
  it('round-trips; lt beyond a JS number stays exact (a decimal string)', () => {
    const c = { seqno: 41_000_000, lt: 2n ** 63n - 1n, hash: Buffer.alloc(32, 0xab) };
    const json = JSON.parse(JSON.stringify(encodeCursor(c)));
    expect(json).toEqual({ seqno: 41_000_000, lt: '9223372036854775807', hash: 'ab'.repeat(32) });
    expect(decodeCursor('TON', json)).toEqual(c);
    expect(decodeCursor('TON', encodeCursor({ seqno: 5, lt: 0n, hash: null }))).toEqual({ seqno: 5, lt: 0n, hash: null });
  });

  it('refuses a cursor TON did not write (a devnet { height, hash }, a numeric lt) with InvalidCursorError', () => {
    const others: ChainCursor[] = [
      { height: 5, hash: '0xab' },
      { seqno: 5, lt: 7, hash: '' },
      { seqno: -1, lt: '1', hash: '' },
      { seqno: 5, lt: '1', hash: 'zz' },
    ];
    for (const other of others) {
      expect(() => decodeCursor('TON', other)).toThrow(expect.objectContaining({ name: 'InvalidCursorError', code: 'invalid_cursor' }));
    }
  });

  it('confirmations count masterchain blocks from the one that showed the transfer; final from the first', () => {
    expect(tonConfirmations(10, 9)).toEqual({ confirmations: 0, final: false });
    expect(tonConfirmations(10, 10)).toEqual({ confirmations: 1, final: true });
    expect(tonConfirmations(10, 12)).toEqual({ confirmations: 3, final: true });
  });
});
