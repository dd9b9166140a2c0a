import type { Worker } from 'node:worker_threads';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { createAddressCodec } from '../codecs';
import { EVM_DEPOSIT_ACCOUNT_PATH } from '../evm/codec';
import { TRON_DEPOSIT_ACCOUNT_PATH } from '../tron/codec';
import type { NetworkCode } from '../../domain/networks';
import { DerivationThread, DerivationThreadError } from './derivation-thread';

const JUNK = 'test test test test test test test test test test test junk';
/** Watch-only key material: the account xpubs of the same mnemonic (what an operator without the seed configures). */
const seed = HDKey.fromMasterSeed(mnemonicToSeedSync(JUNK));
const WATCH_ONLY = { xpub: seed.derive(EVM_DEPOSIT_ACCOUNT_PATH).publicExtendedKey, tronXpub: seed.derive(TRON_DEPOSIT_ACCOUNT_PATH).publicExtendedKey };

const threadWorker = (thread: DerivationThread): Worker | null => (thread as unknown as { worker: Worker | null }).worker;

describe("DerivationThread: deposit addresses derived on a worker thread by both of the codecs' implementations", () => {
  const thread = new DerivationThread({ mnemonic: JUNK });
  afterAll(() => thread.close());

  it.each<NetworkCode>(['POLYGON', 'BEP20', 'ARBITRUM', 'TRC20', 'SOLANA'])('%s: every address and every check equals deriveDepositAddress(i) of the same codec', async (network) => {
    const codec = createAddressCodec(network, { mnemonic: JUNK });
    const from = 37;
    const expected = Array.from({ length: 20 }, (_, k) => codec.deriveDepositAddress(from + k));
    expect(await thread.derive(network, from, 20)).toEqual({ addresses: expected, check: expected });
    // The check runs on libsecp256k1 (its add-on ships prebuilt for this platform).
    expect(thread.engine).toBe('libsecp256k1');
  });

  it('watch-only key material (xpubs, no mnemonic) derives the same addresses as the mnemonic', async () => {
    const watchOnly = new DerivationThread(WATCH_ONLY);
    try {
      for (const network of ['POLYGON', 'TRC20'] as const) {
        const derived = await watchOnly.derive(network, 0, 5);
        expect(derived).toEqual(await thread.derive(network, 0, 5));
        expect(derived.check).toEqual(derived.addresses);
      }
    } finally {
      await watchOnly.close();
    }
  });

  it('jobs asked at once are all answered, each with its own range', async () => {
    const ranges = [0, 8, 16, 24].map((from) => thread.derive('TRC20', from, 8));
    const codec = createAddressCodec('TRC20', { mnemonic: JUNK });
    expect((await Promise.all(ranges)).flatMap((r) => r.addresses)).toEqual(Array.from({ length: 32 }, (_, i) => codec.deriveDepositAddress(i)));
  });

  it("a codec that refuses fails that job only, with the codec's reason", async () => {
    const refused = thread.derive('TON', 0, 1);
    await expect(refused).rejects.toBeInstanceOf(DerivationThreadError);
    await expect(refused).rejects.toMatchObject({ details: { network: 'TON', from: 0, count: 1, cause: expect.stringContaining('UnsupportedOperationError') } });
    await expect(thread.derive('POLYGON', 0, 1)).resolves.toMatchObject({ addresses: [expect.any(String)], check: [expect.any(String)] });
  });

  it('a thread that dies fails its running jobs; the next job starts a new thread', async () => {
    const crashing = new DerivationThread({ mnemonic: JUNK });
    try {
      await crashing.derive('POLYGON', 0, 1);
      const first = threadWorker(crashing)!;
      const running = crashing.derive('SOLANA', 0, 200);
      await first.terminate();
      await expect(running).rejects.toBeInstanceOf(DerivationThreadError);
      const again = await crashing.derive('POLYGON', 3, 2);
      expect(threadWorker(crashing)).not.toBe(first);
      expect(again.addresses).toEqual([3, 4].map((i) => createAddressCodec('POLYGON', { mnemonic: JUNK }).deriveDepositAddress(i)));
    } finally {
      await crashing.close();
    }
  });

  it('after close, jobs are refused and no thread is left', async () => {
    const closing = new DerivationThread({ mnemonic: JUNK });
    await closing.derive('POLYGON', 0, 1);
    await closing.close();
    expect(threadWorker(closing)).toBeNull();
    await expect(closing.derive('POLYGON', 0, 1)).rejects.toThrow('closed');
  });

  it('close while jobs run: they are answered first, then the thread stops (never terminated mid-job)', async () => {
    // Terminating the thread inside keccak's N-API add-on aborted the whole process (SIGABRT) in 2 of
    // about 1,080 closes mid-job or near it; close() now waits for the answers.
    const busy = new DerivationThread({ mnemonic: JUNK });
    await busy.derive('POLYGON', 0, 1);
    const running = [busy.derive('TRC20', 0, 200), busy.derive('BEP20', 0, 100)];
    await busy.close();
    const [tron, bep20] = await Promise.all(running);
    expect(tron!.addresses).toHaveLength(200);
    expect(tron!.check).toEqual(tron!.addresses);
    expect(bep20!.addresses).toHaveLength(100);
    expect(threadWorker(busy)).toBeNull();
    await expect(busy.derive('POLYGON', 0, 1)).rejects.toThrow('closed');
  });

  it('a thread that cannot be created fails the job with DerivationThreadError and leaves nothing pending', async () => {
    // Key material the worker cannot be given (a function does not survive structured cloning):
    // new Worker throws at once.
    const unstartable = new DerivationThread({ mnemonic: JUNK, extra: () => 1 } as unknown as { mnemonic: string });
    try {
      const failed = unstartable.derive('POLYGON', 0, 1);
      await expect(failed).rejects.toBeInstanceOf(DerivationThreadError);
      await expect(failed).rejects.toThrow('could not start');
      expect((unstartable as unknown as { pending: Map<number, unknown> }).pending.size).toBe(0);
      expect(threadWorker(unstartable)).toBeNull();
    } finally {
      await unstartable.close();
    }
  });
});
