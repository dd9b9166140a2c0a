import { NETWORK_FACTS, type NetworkCode } from '../../domain/networks';
import type { AddressCodec } from '../codec';

/**
 * The devnet's own token ids and EVM chain ids: a devnet payment link (QR code) must never be
 * payable by a real wallet with real USDT. A wallet scanning one would otherwise send mainnet USDT
 * to an address whose payment no devnet watcher sees: the buyer's money would be lost.
 *
 * - EVM chain ids: DEVNET_CHAIN_ID_BASE + the mainnet chain id, i.e. BEP20 2100000056, POLYGON
 *   2100000137, ARBITRUM 2100042161. None is a registered chain (ethereum-lists/chains, checked
 *   when chosen); they fit in 31 bits like most real ids, so tools that store chain ids as int32
 *   keep working. An EIP-681 link on such an id is refused by a wallet that does not know the chain.
 * - Token ids: the family's sampleAddress of "chainpay-devnet:<NETWORK>:usdt" (SHA-256 of that text
 *   as the account id): a well-formed contract / jetton master / mint in the family's format, the
 *   same on every daemon and database, and not the mainnet USDT id (checked on construction). On a
 *   real chain nothing lives there, so a wallet has no such token to send.
 */
export const DEVNET_CHAIN_ID_BASE = 2_100_000_000;

/** The EVM chain id in devnet links; undefined for families without chain ids (TRON, TON, SOLANA). */
export function devnetChainId(network: NetworkCode): number | undefined {
  const mainnet = NETWORK_FACTS[network].chainId;
  return mainnet === undefined ? undefined : DEVNET_CHAIN_ID_BASE + mainnet;
}

/** The seed of a network's devnet USDT id (kept apart from the look-alike "fake" token's seed). */
export function devnetTokenSeed(network: NetworkCode): string {
  return `chainpay-devnet:${network}:usdt`;
}

/** The devnet USDT id of `network`, in the family's address format. */
export function devnetTokenId(network: NetworkCode, codec: AddressCodec): string {
  return codec.sampleAddress(devnetTokenSeed(network));
}

/** The look-alike token (`chainpay devnet pay --token fake`): on chain, never a payment. */
export function devnetFakeTokenId(network: NetworkCode, codec: AddressCodec): string {
  return codec.sampleAddress(`chainpay-devnet:${network}:fake-usdt`);
}

/** A devnet token that is a mainnet USDT id would make devnet links payable with real money. */
export function assertNotMainnetToken(network: NetworkCode, tokenId: string, codec: AddressCodec): void {
  const mainnet = NETWORK_FACTS[network].mainnetToken;
  // A family whose format cannot even spell the mainnet id (one registered for the network in its place) cannot collide with it.
  if (codec.isValidAddress(mainnet) && codec.normalizeAddress(tokenId) === codec.normalizeAddress(mainnet)) {
    throw new RangeError(`devnet ${network}: the token id must not be mainnet USDT (${tokenId}): a real wallet could pay a devnet link with real money`);
  }
}
