import { NETWORK_CODES, type NetworkCode } from '../domain/networks';
import { evmFamily } from './evm/family';
import type { ChainFamilyDefinition } from './family';
import { solanaFamily } from './solana/family';
import { tonFamily } from './ton/family';
import { tronFamily } from './tron/family';

/**
 * THE registry of chain families: one entry per family (docs/chains.md, Adding a family). Nothing
 * else in the daemon names a family; it iterates over a FamilyRegistry built from this list.
 */
export const BUILT_IN_FAMILIES: readonly ChainFamilyDefinition[] = [evmFamily, tronFamily, tonFamily, solanaFamily];

/** A family registered twice, or a network claimed by two families of the same registration. */
export class FamilyRegistrationError extends Error {
  override readonly name = 'FamilyRegistrationError';
  constructor(
    readonly family: string,
    message: string,
  ) {
    super(message);
  }
}

/** Which family runs each network of the REST contract. */
export class FamilyRegistry {
  private readonly byNetwork: ReadonlyMap<NetworkCode, ChainFamilyDefinition>;
  private readonly builtIn: ReadonlySet<NetworkCode>;

  private constructor(byNetwork: Map<NetworkCode, ChainFamilyDefinition>, builtIn: ReadonlySet<NetworkCode>) {
    for (const code of NETWORK_CODES) if (!byNetwork.has(code)) throw new FamilyRegistrationError('-', `no family runs ${code}`);
    this.byNetwork = byNetwork;
    this.builtIn = builtIn;
  }

  /** The built-in families (BUILT_IN_FAMILIES). */
  static builtIn(): FamilyRegistry {
    return new FamilyRegistry(claim(new Map(), BUILT_IN_FAMILIES), new Set(NETWORK_CODES));
  }

  /**
   * This registry with `extra` families registered on top (e.g. a test's own family): each takes
   * over the networks it lists from the family that ran them. Two extras may not claim one network.
   */
  with(...extra: readonly ChainFamilyDefinition[]): FamilyRegistry {
    const taken = claim(new Map(), extra);
    const byNetwork = new Map(this.byNetwork);
    for (const [code, family] of taken) byNetwork.set(code, family);
    return new FamilyRegistry(byNetwork, new Set([...this.builtIn].filter((c) => !taken.has(c))));
  }

  /** The family that runs `network`. */
  of(network: NetworkCode): ChainFamilyDefinition {
    return this.byNetwork.get(network)!;
  }

  /** Every family running at least one network, in registration order. */
  families(): ChainFamilyDefinition[] {
    return [...new Set(this.byNetwork.values())];
  }

  /** The networks `family` runs here (a family taken over keeps only the rest). */
  networksOf(family: ChainFamilyDefinition): NetworkCode[] {
    return NETWORK_CODES.filter((c) => this.byNetwork.get(c) === family);
  }

  /**
   * The index space of `network`'s deposit addresses: the family id where the family's networks
   * derive one address (ChainFamilyDefinition.sharedAddresses), else the network code. One index of
   * a space belongs to one network's pool, so one address is never open on two networks.
   */
  indexSpace(network: NetworkCode): string {
    const family = this.of(network);
    return family.sharedAddresses ? family.id : network;
  }

  /** The networks whose addresses are `network`'s too (its index space), itself included. */
  sharingAddressesWith(network: NetworkCode): NetworkCode[] {
    const space = this.indexSpace(network);
    return NETWORK_CODES.filter((c) => this.indexSpace(c) === space);
  }

  /**
   * Whether a built-in family runs `network`. Only those can derive on the derivation thread (a
   * worker thread rebuilds its codecs from BUILT_IN_FAMILIES: it cannot see a family registered at run time).
   */
  isBuiltIn(network: NetworkCode): boolean {
    return this.builtIn.has(network);
  }
}

function claim(into: Map<NetworkCode, ChainFamilyDefinition>, families: readonly ChainFamilyDefinition[]): Map<NetworkCode, ChainFamilyDefinition> {
  const ids = new Set<string>();
  for (const family of families) {
    if (ids.has(family.id)) throw new FamilyRegistrationError(family.id, `family ${family.id} is registered twice`);
    ids.add(family.id);
    for (const code of family.networks) {
      const other = into.get(code);
      if (other) throw new FamilyRegistrationError(family.id, `${code} is claimed by both ${other.id} and ${family.id}`);
      into.set(code, family);
    }
  }
  return into;
}

/** The registry of the built-in families, built once (codecs.ts, hasLiveAdapter). */
let builtIn: FamilyRegistry | undefined;
export function builtInFamilies(): FamilyRegistry {
  builtIn ??= FamilyRegistry.builtIn();
  return builtIn;
}
