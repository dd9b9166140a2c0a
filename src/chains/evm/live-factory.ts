import { z } from 'zod';
import type { NetworkCode } from '../../domain/networks';
import type { LiveSettings } from '../family';
import type { LiveAdapterInput } from '../live-adapter';
import type { ChainAdapter } from '../types';
import { createEvmAdapter } from './adapter';
import { isEvmNetwork } from './config';
import { EvmConfigError } from './errors';

/** What the daemon passes per EVM network (from <CODE>_RPC_URL, <CODE>_TOKEN_ADDRESS, <CODE>_CONFIRMATIONS). */
const liveOptions = z.object({
  rpcUrl: z.string().url(),
  tokenAddress: z.string().min(1).optional(),
  confirmations: z.number().int().min(1),
  expectedDecimals: z.number().int().min(0).max(36).optional(),
  expectedChainId: z.number().int().positive().optional(),
  pollIntervalMs: z.number().int().min(10).optional(),
  rpcTimeoutMs: z.number().int().min(100).optional(),
  maxBlockRange: z.number().int().min(1).optional(),
});

export type EvmLiveOptions = z.infer<typeof liveOptions>;

/** The registry's factory for the EVM family: validates the opaque per-network options. */
export function evmLiveFactory(input: LiveAdapterInput): ChainAdapter {
  const { network } = input;
  if (!isEvmNetwork(network)) throw new RangeError(`${network} is not an EVM network`);
  const parsed = liveOptions.safeParse(input.options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? 'rpcUrl');
    const variable = { rpcUrl: 'RPC_URL', tokenAddress: 'TOKEN_ADDRESS', confirmations: 'CONFIRMATIONS' }[field] ?? field;
    throw new EvmConfigError(`${network}_${variable}`, input.options === undefined ? 'required for a live EVM network' : (issue?.message ?? 'invalid'));
  }
  return createEvmAdapter({ network, codec: input.codec, ...parsed.data, onRpc: input.onRpc });
}

/** The per-network settings the daemon's config holds (src/config NetworkConfig, structurally). */
export interface EvmNetworkSettings {
  readonly enabled?: boolean;
  /** What readEvmLive (family.ts) read from `<CODE>_RPC_URL`, `<CODE>_TOKEN_ADDRESS`, `<CODE>_CHAIN_ID`, ...; null without an RPC URL. */
  readonly live: LiveSettings | null;
}

/**
 * The registry's `live` options for every enabled EVM network with an RPC URL, e.g.
 * `createChainAdapters({ ..., live: evmLiveOptions(config.networks) })` (the daemon passes every
 * family's LiveSettings.options the same way). A network without `<CODE>_RPC_URL` gets no entry (in
 * live mode it is disabled; DESIGN.md, Embedded defaults).
 */
export function evmLiveOptions(networks: Partial<Record<NetworkCode, EvmNetworkSettings>>): Partial<Record<NetworkCode, EvmLiveOptions>> {
  const out: Partial<Record<NetworkCode, EvmLiveOptions>> = {};
  for (const [code, n] of Object.entries(networks) as Array<[NetworkCode, EvmNetworkSettings]>) {
    if (!isEvmNetwork(code) || !n.live || n.enabled === false) continue;
    out[code] = n.live.options as EvmLiveOptions;
  }
  return out;
}
