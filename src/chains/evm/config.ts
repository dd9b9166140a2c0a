import type { RpcObserver } from '../types';
import { NETWORK_FACTS, type NetworkCode } from '../../domain/networks';
import type { AddressCodec } from '../codec';
import { DEFAULT_RANGE_GROWTH, type RangeGrowth } from '../sync/range-size';

export const EVM_NETWORKS = ['BEP20', 'POLYGON', 'ARBITRUM'] as const satisfies readonly NetworkCode[];
export type EvmNetworkCode = (typeof EVM_NETWORKS)[number];

/** The coin each network's gas is paid in (what the hot wallet needs besides USDT). */
export const EVM_GAS_COIN: Readonly<Record<EvmNetworkCode, string>> = { BEP20: 'BNB', POLYGON: 'POL', ARBITRUM: 'ETH' };

export function isEvmNetwork(network: NetworkCode): network is EvmNetworkCode {
  return (EVM_NETWORKS as readonly string[]).includes(network);
}

/**
 * Configuration of one EVM network's live adapter.
 *
 * Environment (read by readEvmLive in family.ts, passed in by the registry as the live options):
 *   <CODE>_RPC_URL         rpcUrl (required for live mode), e.g. POLYGON_RPC_URL=https://polygon-rpc.example
 *   <CODE>_TOKEN_ADDRESS   tokenAddress (default: the real USDT contract of NETWORK_FACTS)
 *   <CODE>_CONFIRMATIONS   confirmations (default: NETWORK_DEFAULTS, e.g. 64 on POLYGON)
 */
export interface EvmAdapterConfig {
  readonly network: EvmNetworkCode;
  /** HTTP(S) JSON-RPC endpoint. It must serve eth_getLogs over at least `maxBlockRange` blocks. */
  readonly rpcUrl: string;
  /** Deposit addresses (BIP-44 coin 60, watch-only from an xpub) and the payout hot wallet. */
  readonly codec: AddressCodec;
  /** The token that counts as payment. Default: NETWORK_FACTS[network].mainnetToken (real USDT). */
  readonly tokenAddress?: string;
  /** Required confirmations: a transfer with this many (head - block + 1) is final. */
  readonly confirmations: number;
  /**
   * decimals() read from the token at init must equal this; default NETWORK_FACTS (18 on BEP20,
   * 6 on POLYGON/ARBITRUM). Override only for test tokens.
   */
  readonly expectedDecimals?: number;
  /** When set, init fails unless eth_chainId returns it (guards against an RPC of another chain). */
  readonly expectedChainId?: number;
  /** Head polling interval once caught up. Default 2000 ms. */
  readonly pollIntervalMs?: number;
  /** Blocks per eth_getLogs while catching up (provider limit). Default 500; narrowed when refused, grown back as ranges succeed. */
  readonly maxBlockRange?: number;
  /** How a refused range grows back (default DEFAULT_RANGE_GROWTH, src/chains/sync/range-size.ts). */
  readonly rangeGrowth?: RangeGrowth;
  /** Per-request timeout. Default 15000 ms. */
  readonly rpcTimeoutMs?: number;
  /** Latency and outcome of every JSON-RPC round trip (metrics). */
  readonly onRpc?: RpcObserver;
  /** Retry backoff of the watcher. Default 500 ms doubling to 30 s. */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** Gas limit = estimate × (100 + this) / 100. Default 25. */
  readonly gasHeadroomPercent?: number;
}

export interface ResolvedEvmConfig extends Required<Omit<EvmAdapterConfig, 'expectedChainId' | 'onRpc'>> {
  readonly expectedChainId: number | undefined;
  readonly onRpc: RpcObserver | undefined;
}

export function resolveEvmConfig(config: EvmAdapterConfig): ResolvedEvmConfig {
  const facts = NETWORK_FACTS[config.network];
  if (!Number.isInteger(config.confirmations) || config.confirmations < 1) throw new RangeError(`${config.network}: confirmations must be an integer >= 1`);
  return {
    network: config.network,
    rpcUrl: config.rpcUrl,
    codec: config.codec,
    tokenAddress: config.tokenAddress ?? facts.mainnetToken,
    confirmations: config.confirmations,
    expectedDecimals: config.expectedDecimals ?? facts.tokenDecimals,
    expectedChainId: config.expectedChainId,
    pollIntervalMs: config.pollIntervalMs ?? 2000,
    maxBlockRange: config.maxBlockRange ?? 500,
    rangeGrowth: config.rangeGrowth ?? DEFAULT_RANGE_GROWTH,
    rpcTimeoutMs: config.rpcTimeoutMs ?? 15_000,
    backoff: config.backoff ?? { initialMs: 500, maxMs: 30_000 },
    gasHeadroomPercent: config.gasHeadroomPercent ?? 25,
    onRpc: config.onRpc,
  };
}
