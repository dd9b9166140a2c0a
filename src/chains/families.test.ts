import { NETWORK_CODES, NETWORK_FACTS } from '../domain/networks';
import { EvmCodec } from './evm/codec';
import { FamilyConfigError } from './errors';
import { BUILT_IN_FAMILIES, FamilyRegistrationError, FamilyRegistry } from './families';
import type { ChainFamilyDefinition } from './family';
import { hasLiveAdapter } from './registry';

const standIn = (id: string, networks: ChainFamilyDefinition['networks']): ChainFamilyDefinition => ({ id, networks, readLive: () => null, codec: (keys) => new EvmCodec(keys) });

describe('the family registry', () => {
  it('runs every network by exactly one built-in family, the one of the network facts (the devnet simulates by them)', () => {
    const registry = FamilyRegistry.builtIn();
    for (const code of NETWORK_CODES) {
      expect([code, registry.of(code).id]).toEqual([code, NETWORK_FACTS[code].family]);
      expect(registry.isBuiltIn(code)).toBe(true);
    }
    expect(registry.families().map((f) => f.id)).toEqual(BUILT_IN_FAMILIES.map((f) => f.id));
    expect(registry.networksOf(registry.of('POLYGON'))).toEqual(['BEP20', 'POLYGON', 'ARBITRUM']);
  });

  it('a family registered on top takes over the networks it lists; the others stay', () => {
    const toy = standIn('toy', ['POLYGON']);
    const registry = FamilyRegistry.builtIn().with(toy);
    expect(registry.of('POLYGON')).toBe(toy);
    expect(registry.isBuiltIn('POLYGON')).toBe(false);
    expect(registry.of('BEP20').id).toBe('evm');
    expect(registry.networksOf(registry.of('BEP20'))).toEqual(['BEP20', 'ARBITRUM']);
    // Live capability follows the registry in use.
    expect(hasLiveAdapter('POLYGON')).toBe(true);
    expect(hasLiveAdapter('POLYGON', registry)).toBe(false);
    // A family that lost all its networks is no longer iterated.
    expect(
      FamilyRegistry.builtIn()
        .with(standIn('t', ['TRC20']))
        .families()
        .map((f) => f.id),
    ).not.toContain('tron');
  });

  it('index spaces: the EVM networks derive one address and share one space; TRON, TON and SOLANA each have their own (issue 44)', () => {
    const registry = FamilyRegistry.builtIn();
    for (const code of ['BEP20', 'POLYGON', 'ARBITRUM'] as const) {
      expect(registry.indexSpace(code)).toBe('evm');
      expect(registry.sharingAddressesWith(code)).toEqual(['BEP20', 'POLYGON', 'ARBITRUM']);
    }
    for (const code of ['TRC20', 'TON', 'SOLANA'] as const) {
      expect(registry.indexSpace(code)).toBe(code);
      expect(registry.sharingAddressesWith(code)).toEqual([code]);
    }
    // It is the family's property: a family registered on top without it has spaces of its own;
    // one that declares it shares one space across its networks.
    const toy = FamilyRegistry.builtIn().with(standIn('toy', ['POLYGON']));
    expect(toy.indexSpace('POLYGON')).toBe('POLYGON');
    expect(toy.sharingAddressesWith('BEP20')).toEqual(['BEP20', 'ARBITRUM']);
    const pair = FamilyRegistry.builtIn().with({ ...standIn('pair', ['TRC20', 'SOLANA']), sharedAddresses: true });
    expect(pair.sharingAddressesWith('SOLANA')).toEqual(['TRC20', 'SOLANA']);
  });

  it('refuses two families claiming one network, and one family registered twice', () => {
    expect(() => FamilyRegistry.builtIn().with(standIn('a', ['TON']), standIn('b', ['TON']))).toThrow(FamilyRegistrationError);
    expect(() => FamilyRegistry.builtIn().with(standIn('a', ['TON']), standIn('a', ['SOLANA']))).toThrow(/registered twice/);
  });

  it('the SOLANA family reads its own variables (SOLANA_RPC_URL makes it live) and has its live adapter', () => {
    const solana = FamilyRegistry.builtIn().of('SOLANA');
    const network = { network: 'SOLANA' as const, requiredConfirmations: 1 };
    expect(solana.readLive({}, network)).toBeNull();
    expect(solana.readLive({ SOLANA_RPC_URL: 'http://127.0.0.1:9' }, network)).toMatchObject({ from: 'SOLANA_RPC_URL', options: { SOLANA_RPC_URL: 'http://127.0.0.1:9' } });
    expect(() => solana.readLive({ SOLANA_RPC_URL: 'nope' }, network)).toThrow(/^invalid configuration: SOLANA_RPC_URL: /);
    expect(() => solana.readLive({ SOLANA_MAX_SLOT_RANGE: '10' }, network)).toThrow(FamilyConfigError);
    expect(hasLiveAdapter('SOLANA')).toBe(true);
  });

  it('TON has its live adapter; its family reads TON_RPC_URL (validated, named), which makes it live', () => {
    const family = FamilyRegistry.builtIn().of('TON');
    const network = { network: 'TON', requiredConfirmations: 3 } as const;
    expect(family.readLive({}, network)).toBeNull();
    expect(family.readLive({ TON_RPC_URL: 'http://127.0.0.1:9' }, network)).toMatchObject({ from: 'TON_RPC_URL', options: { rpcUrl: 'http://127.0.0.1:9' } });
    expect(() => family.readLive({ TON_RPC_URL: 'nope' }, network)).toThrow(/^invalid configuration: TON_RPC_URL: /);
    expect(hasLiveAdapter('TON')).toBe(true);
  });

  it('the EVM family reads its own variables: the xpub, and a network live only with its RPC URL', () => {
    const evm = FamilyRegistry.builtIn().of('BEP20');
    expect(evm.readKeys?.({})).toEqual({ xpub: undefined });
    expect(() => evm.readKeys?.({ EVM_DEPOSIT_XPUB: 'xprv' })).toThrow(/^invalid configuration: EVM_DEPOSIT_XPUB: must be an account xpub/);
    expect(evm.readLive({ BEP20_RPC_URL: 'http://127.0.0.1:8545' }, { network: 'BEP20', requiredConfirmations: 15 })).toEqual({
      from: 'BEP20_RPC_URL',
      options: { rpcUrl: 'http://127.0.0.1:8545', confirmations: 15, expectedChainId: 56 },
    });
    expect(() => evm.readLive({ BEP20_TOKEN_ADDRESS: '0x1' }, { network: 'BEP20', requiredConfirmations: 15 })).toThrow(
      /^invalid configuration: BEP20_TOKEN_ADDRESS: is a live chain setting and needs BEP20_RPC_URL/,
    );
  });

  it('the TRON family reads its own variables (zod, named), is live with TRC20_RPC_URL and has a live adapter', () => {
    const tron = FamilyRegistry.builtIn().of('TRC20');
    const network = { network: 'TRC20' as const, requiredConfirmations: 20 };
    expect(tron.id).toBe('tron');
    expect(hasLiveAdapter('TRC20')).toBe(true);
    expect(tron.readLive({}, network)).toBeNull();
    expect(tron.readLive({ TRC20_RPC_URL: 'https://api.trongrid.io/', TRC20_API_KEY: 'k' }, network)).toEqual({
      from: 'TRC20_RPC_URL',
      options: { rpcUrl: 'https://api.trongrid.io', apiKey: 'k', tokenAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', confirmations: 20, feeLimitSun: 50_000_000, pollIntervalMs: 9000, rps: 10 },
    });
    expect(() => tron.readLive({ TRC20_RPC_URL: 'nope' }, network)).toThrow(FamilyConfigError);
    for (const stray of ['TRC20_API_KEY', 'TRC20_FEE_LIMIT', 'TRC20_TOKEN_ADDRESS']) {
      expect(() => tron.readLive({ [stray]: '5' }, network)).toThrow(new RegExp(`^invalid configuration: ${stray}: is a live chain setting and needs TRC20_RPC_URL`));
    }
  });
});
