import { NETWORK_CODES, NETWORK_FACTS } from '../domain/networks';
import { EvmCodec } from './evm/codec';
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

  it('refuses two families claiming one network, and one family registered twice', () => {
    expect(() => FamilyRegistry.builtIn().with(standIn('a', ['TON']), standIn('b', ['TON']))).toThrow(FamilyRegistrationError);
    expect(() => FamilyRegistry.builtIn().with(standIn('a', ['TON']), standIn('a', ['SOLANA']))).toThrow(/registered twice/);
  });
});
