import { WalletNonces } from './nonces';

describe('WalletNonces', () => {
  it('skips nonces signed but not yet broadcast, and frees them once sent or expired', async () => {
    let now = 0;
    const book = new WalletNonces(1000, () => now);
    const pending = 5; // the node knows nothing of our signatures
    const sign = (n: number) => Promise.resolve(n);
    expect(await Promise.all([book.assign(async () => pending, sign), book.assign(async () => pending, sign)])).toEqual([5, 6]);
    book.sent(5); // broadcast: the node's pending count now covers 5
    expect(await book.assign(async () => 6, sign)).toBe(7);
    now = 1500; // 6 was never broadcast: its reservation lapses, the wallet is not blocked forever
    expect(await book.assign(async () => 6, sign)).toBe(6);
  });

  it('after a restart (a new book) the stored open payouts hold their nonces: next is max(pending, highest stored + 1)', async () => {
    const book = new WalletNonces();
    const sign = (n: number) => Promise.resolve(n);
    // Stored signed payouts 5 and 6 were never broadcast: the node's pending count is still 5.
    expect(
      await book.assign(
        async () => 5,
        sign,
        async () => 6,
      ),
    ).toBe(7);
    // The node is ahead of the stored ones (they are out, or other transactions were sent).
    expect(
      await book.assign(
        async () => 9,
        sign,
        async () => 6,
      ),
    ).toBe(9);
    // Nothing stored open.
    expect(
      await book.assign(
        async () => 10,
        sign,
        async () => null,
      ),
    ).toBe(10);
  });

  it('a reservation whose row is stored never lapses while its withdrawal is open, however long it waits', async () => {
    let now = 0;
    const book = new WalletNonces(1000, () => now);
    const sign = (n: number) => Promise.resolve(n);
    let stored: number | null = null;
    expect(
      await book.assign(
        async () => 5,
        sign,
        async () => stored,
      ),
    ).toBe(5);
    stored = 5; // its row committed; never broadcast
    now = 10 * 60_000;
    expect(
      await book.assign(
        async () => 5,
        sign,
        async () => stored,
      ),
    ).toBe(6);
  });

  it('a signature whose row never committed (rolled back) is freed after reserveMs: no nonce gap', async () => {
    let now = 0;
    const book = new WalletNonces(1000, () => now);
    const sign = (n: number) => Promise.resolve(n);
    expect(
      await book.assign(
        async () => 5,
        sign,
        async () => null,
      ),
    ).toBe(5);
    // Another signature before the first one's commit: the in-memory reservation bridges it.
    expect(
      await book.assign(
        async () => 5,
        sign,
        async () => null,
      ),
    ).toBe(6);
    now = 1500; // neither row was ever committed: both are free again
    expect(
      await book.assign(
        async () => 5,
        sign,
        async () => null,
      ),
    ).toBe(5);
  });

  it('the stored floor is read under the wallet lock, after the previous signature finished', async () => {
    const book = new WalletNonces();
    const reads: string[] = [];
    let stored: number | null = null;
    const first = book.assign(
      async () => 5,
      async (n) => {
        await new Promise((r) => setTimeout(r, 20));
        stored = n; // committed inside the locked section
        reads.push(`signed ${n}`);
        return n;
      },
      async () => (reads.push('read'), stored),
    );
    const second = book.assign(
      async () => 5,
      async (n) => (reads.push(`signed ${n}`), n),
      async () => (reads.push('read'), stored),
    );
    expect(await Promise.all([first, second])).toEqual([5, 6]);
    expect(reads).toEqual(['read', 'signed 5', 'read', 'signed 6']);
  });

  it('does not reserve a nonce whose signing failed', async () => {
    const book = new WalletNonces();
    await expect(
      book.assign(
        async () => 3,
        async () => Promise.reject(new Error('boom')),
      ),
    ).rejects.toThrow('boom');
    expect(
      await book.assign(
        async () => 3,
        async (n) => n,
      ),
    ).toBe(3);
  });
});
