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

  it('does not reserve a nonce whose signing failed', async () => {
    const book = new WalletNonces();
    await expect(book.assign(async () => 3, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await book.assign(async () => 3, async (n) => n)).toBe(3);
  });
});
