import { z } from 'zod';
import { NETWORK_FACTS, type NetworkCode } from '../../domain/networks';
import { FamilyConfigError } from '../errors';
import type { ChainFamilyDefinition, FamilyEnv, FamilyNetwork, LiveSettings } from '../family';
import { readVariable, xpubSchema } from '../family-env';
import { EvmCodec } from './codec';
import { EVM_NETWORKS } from './config';
import { evmLiveFactory, type EvmLiveOptions } from './live-factory';

/** Settings only a real chain reads: given without `<CODE>_RPC_URL` they would be silently ignored. */
const LIVE_ONLY = ['TOKEN_ADDRESS', 'CHAIN_ID', 'POLL_INTERVAL_MS', 'RPC_TIMEOUT_MS'] as const;

/**
 * The EVM family's environment (BEP20, POLYGON, ARBITRUM):
 *   EVM_DEPOSIT_XPUB        account xpub at m/44'/60'/0': watch-only deposit addresses
 *   <CODE>_RPC_URL          the JSON-RPC endpoint; setting it makes the network live
 *   <CODE>_TOKEN_ADDRESS    the token that counts (default: the real USDT of NETWORK_FACTS)
 *   <CODE>_CHAIN_ID         the chain id the RPC must serve (default: the network's real one; 31337 for hardhat)
 *   <CODE>_POLL_INTERVAL_MS head polling once caught up (default 2000 ms)
 *   <CODE>_RPC_TIMEOUT_MS   how long one JSON-RPC request may take (default 15000 ms)
 * (`<CODE>_CONFIRMATIONS` is every network's, read by src/config: it becomes `confirmations`.)
 */
export function readEvmLive(env: FamilyEnv, { network, requiredConfirmations }: FamilyNetwork): LiveSettings | null {
  const rpcVariable = `${network}_RPC_URL`;
  const rpcUrl = readVariable(env, rpcVariable, z.string().url());
  const tokenAddress = readVariable(env, `${network}_TOKEN_ADDRESS`, z.string().min(1));
  const pollIntervalMs = readVariable(env, `${network}_POLL_INTERVAL_MS`, z.coerce.number().int().min(10).max(600_000));
  const chainId = readVariable(env, `${network}_CHAIN_ID`, z.coerce.number().int().positive());
  const rpcTimeoutMs = readVariable(env, `${network}_RPC_TIMEOUT_MS`, z.coerce.number().int().min(100).max(600_000));
  if (rpcUrl === undefined) {
    const stray = LIVE_ONLY.map((s) => `${network}_${s}`).find((v) => env[v] !== undefined && env[v] !== '');
    if (stray) throw new FamilyConfigError(stray, `is a live chain setting and needs ${rpcVariable} (on devnet it would be ignored); set ${rpcVariable} or unset ${stray}`);
    return null;
  }
  // The adapter's init() refuses an RPC serving another chain than the network's real one (or <CODE>_CHAIN_ID).
  const expectedChainId = chainId ?? NETWORK_FACTS[network].chainId;
  const options: EvmLiveOptions = {
    rpcUrl,
    confirmations: requiredConfirmations,
    ...(expectedChainId !== undefined ? { expectedChainId } : {}),
    ...(tokenAddress ? { tokenAddress } : {}),
    ...(pollIntervalMs ? { pollIntervalMs } : {}),
    ...(rpcTimeoutMs ? { rpcTimeoutMs } : {}),
  };
  return { from: rpcVariable, options };
}

/** The EVM family: one registry entry (src/chains/families.ts). */
export const evmFamily: ChainFamilyDefinition = {
  id: 'evm',
  networks: EVM_NETWORKS satisfies readonly NetworkCode[],
  // One xpub, one path for all three: index i is the same address on BEP20, POLYGON and ARBITRUM.
  sharedAddresses: true,
  readKeys: (env) => ({ xpub: readVariable(env, 'EVM_DEPOSIT_XPUB', xpubSchema) }),
  readLive: readEvmLive,
  codec: (keys, options) => new EvmCodec(keys, options?.addon),
  live: evmLiveFactory,
};
