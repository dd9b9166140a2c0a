import { NETWORK_CODES } from '../domain/networks';
import { DevnetAdapter } from './devnet/adapter';
import { manualClock } from './devnet/testing';
import { AdapterUnavailableError, ChainModeMixError } from './errors';
import { EvmCodec } from './evm/codec';
import { FamilyRegistry } from './families';
import { createChainAdapters, hasLiveAdapter } from './registry';

const keys = { mnemonic: 'test test test test test test test test test test test junk' };

describe('createChainAdapters', () => {
  it('devnet: one adapter and its controls per network, with real-format addresses', async () => {
    const { adapters, devnet } = createChainAdapters({
      networks: [...NETWORK_CODES],
      mode: 'devnet',
      keys,
      clock: manualClock(),
      devnet: { blockIntervalMs: 0, finalityDepth: { TRC20: 2 } },
    });
    try {
      expect([...adapters.keys()]).toEqual([...NETWORK_CODES]);
      expect([...devnet.keys()]).toEqual([...NETWORK_CODES]);
      for (const adapter of adapters.values()) {
        expect(adapter).toBeInstanceOf(DevnetAdapter);
        expect(adapter.mode).toBe('devnet');
        await adapter.init();
      }
      expect(devnet.get('TRC20')).toBe(adapters.get('TRC20'));
      expect(adapters.get('TRC20')!.deriveDepositAddress(0)).toBe('TWer2Ygk5TEheHp3TPuYeqxmB6SsGZmaL6');
      expect(adapters.get('POLYGON')!.deriveDepositAddress(0)).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
      // Range derivation where the codec has it (EVM, TRON), none elsewhere (the pool then steps one address at a time).
      expect(adapters.get('POLYGON')!.deriveDepositAddresses?.(0, 2)).toEqual([0, 1].map((i) => adapters.get('POLYGON')!.deriveDepositAddress(i)));
      expect(adapters.get('TRC20')!.deriveDepositAddresses?.(0, 1)).toEqual(['TWer2Ygk5TEheHp3TPuYeqxmB6SsGZmaL6']);
      expect(adapters.get('SOLANA')!.deriveDepositAddresses).toBeUndefined();
      // Normalizing their own derivations without re-validating: where validation costs (EVM: a keccak).
      expect(adapters.get('POLYGON')!.normalizeDerivedAddress?.('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')).toBe('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');
      expect(adapters.get('TRC20')!.normalizeDerivedAddress).toBeUndefined();
      expect(adapters.get('TON')!.isValidAddress(adapters.get('TON')!.sharedDepositAddress())).toBe(true);
      // Devnet token ids, not mainnet USDT's (devnet/ids.ts): a real wallet cannot pay a devnet link.
      expect(adapters.get('SOLANA')!.tokenContract).toBe('AvYoSedFZBsz5ayJ8tArkgCKdZaNJMmBQRT3oxmJiv4v');
      expect(adapters.get('BEP20')!.tokenDecimals).toBe(18);
      // Per-network finality from the options; default 20 elsewhere.
      await devnet.get('TRC20')!.mine(5);
      await expect(devnet.get('TRC20')!.reorg(3)).rejects.toMatchObject({ code: 'reorg_too_deep' });
      await devnet.get('POLYGON')!.mine(5);
      await expect(devnet.get('POLYGON')!.reorg(3)).resolves.toMatchObject({ head: 6 });
    } finally {
      await Promise.all([...adapters.values()].map((a) => a.close()));
    }
  });

  it('devnet: refuses live options for a network (devnet and live never mix in one daemon)', () => {
    expect(() =>
      createChainAdapters({
        networks: ['TRC20', 'POLYGON'],
        mode: 'devnet',
        keys,
        clock: manualClock(),
        devnet: { blockIntervalMs: 0 },
        live: { POLYGON: { rpcUrl: 'http://127.0.0.1:8545', confirmations: 3 } },
      }),
    ).toThrow(ChainModeMixError);
    expect(hasLiveAdapter('POLYGON')).toBe(true);
    expect(hasLiveAdapter('TRC20')).toBe(true);
  });

  it('live: refuses a family without a live adapter instead of falling back to devnet', () => {
    // Every built-in family has one now: a stand-in family without `live` takes TON over.
    const families = FamilyRegistry.builtIn().with({ id: 'nolive', networks: ['TON'], readLive: () => null, codec: (k) => new EvmCodec(k) });
    expect(hasLiveAdapter('TON', families)).toBe(false);
    expect(() => createChainAdapters({ networks: ['TON'], mode: 'live', keys, clock: manualClock(), devnet: { blockIntervalMs: 0 }, families })).toThrow(AdapterUnavailableError);
  });

  it('live TRC20 without its options: refused naming TRC20_RPC_URL', () => {
    expect(() => createChainAdapters({ networks: ['TRC20'], mode: 'live', keys, clock: manualClock(), devnet: { blockIntervalMs: 0 } })).toThrow(/TRC20_RPC_URL/);
  });
});
