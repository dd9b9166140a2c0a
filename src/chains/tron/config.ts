import Decimal from 'decimal.js';
import { z } from 'zod';
import { NETWORK_FACTS } from '../../domain/networks';
import { FamilyConfigError } from '../errors';
import type { FamilyEnv, FamilyNetwork, LiveSettings } from '../family';
import { readVariable } from '../family-env';
import { DEFAULT_RPS } from './http-client';

/** TRX has 6 decimals: 1 TRX = 1,000,000 sun (fee_limit is given in sun). */
const SUN_PER_TRX = 1_000_000;

/** The TRON adapter's own settings (besides what the registry passes: codec, clock, onRpc). */
export interface TronConfig {
  readonly rpcUrl: string;
  readonly apiKey?: string;
  /** base58 (T...) address of the token contract. */
  readonly tokenAddress: string;
  /** A block is final when solidified AND at least this deep (head - height + 1). */
  readonly confirmations: number;
  /** fee_limit of a payout, in sun. */
  readonly feeLimitSun: number;
  readonly pollIntervalMs: number;
  /** Calls per second to the provider at most (TRC20_RPS; token bucket). Default 10. */
  readonly rps?: number;
  /** A 403 "frequency limit" without Retry-After holds every call this long. Default 30000 (TronGrid's suspension). */
  readonly suspensionMs?: number;
  /** The solidified head is read again once per this many new blocks. Default 10 (SOLID_EVERY_BLOCKS). */
  readonly solidEveryBlocks?: number;
  /** A head read this recent (ms of wall clock) is reused instead of asking again. Default 3000 (one block). */
  readonly headReuseMs?: number;
  /** Blocks per catch-up step (2 HTTP calls each). Default 20. */
  readonly maxBlockRange?: number;
  /** Per-request timeout. Default 15000 ms. */
  readonly timeoutMs?: number;
  /** HTTP retries of one request on 429/5xx/network failures before the caller sees an error. Default 5. */
  readonly retries?: number;
  /** Backoff of the client's retries (Retry-After wins when the node sends it). Default 250 ms doubling to 10 s. */
  readonly retryBackoff?: { readonly initialMs: number; readonly maxMs: number };
  /** The watcher's backoff between failed steps. Default 500 ms doubling to 30 s. */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
}

/** Settings only a real chain reads: given without TRC20_RPC_URL they would be silently ignored. */
const LIVE_ONLY = ['TRC20_API_KEY', 'TRC20_FEE_LIMIT', 'TRC20_TOKEN_ADDRESS', 'TRC20_POLL_INTERVAL_MS', 'TRC20_RPS'] as const;

/**
 * TRC20_POLL_INTERVAL_MS default: three blocks. Each poll at the head then costs one block-range
 * call plus one transaction-info call per block: ~1.4 calls per block, ~41k a day with the
 * solidified head (docs/chains.md, "TronGrid budget"); a deposit is seen at most 9 s later, well
 * inside the ~60 s it takes to become final.
 */
export const DEFAULT_POLL_INTERVAL_MS = 9000;

const feeLimitSchema = z
  .string()
  .regex(/^\d{1,6}(\.\d{1,6})?$/, 'must be TRX as a decimal like "50" (at most 6 decimals)')
  // Zod runs refinements even after a failed regex: no Decimal of a non-number here.
  .refine((v) => !/^0+(\.0+)?$/.test(v), 'must be above 0');

/**
 * TRC20's environment, read by the family itself (src/chains/tron/family.ts readLive):
 *   TRC20_RPC_URL        a full node's HTTP API base (https://api.trongrid.io, or an own java-tron node); makes TRC20 live
 *   TRC20_API_KEY        optional; sent as the TRON-PRO-API-KEY header (TronGrid)
 *   TRC20_TOKEN_ADDRESS  the TRC20 that counts (default: mainnet USDT TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t)
 *   TRC20_FEE_LIMIT      TRX a payout may burn for energy at most (default 50)
 *   TRC20_POLL_INTERVAL_MS  head polling once caught up (default 9000: three blocks)
 *   TRC20_RPS            calls per second to the provider at most (default 10; TronGrid suspends a key above ~15)
 * (`TRC20_CONFIRMATIONS`, default 20, is every network's, read by src/config: a block is final when
 * solidified AND that deep.) Null without TRC20_RPC_URL; throws FamilyConfigError naming the variable,
 * also for a live-only setting given without TRC20_RPC_URL.
 */
export function readTronLive(env: FamilyEnv, { requiredConfirmations }: FamilyNetwork): LiveSettings | null {
  const rpcVariable = 'TRC20_RPC_URL';
  const rpcUrl = readVariable(env, rpcVariable, z.string().url());
  const apiKey = readVariable(env, 'TRC20_API_KEY', z.string().min(1));
  const tokenAddress = readVariable(env, 'TRC20_TOKEN_ADDRESS', z.string().min(1));
  const feeLimit = readVariable(env, 'TRC20_FEE_LIMIT', feeLimitSchema);
  const pollIntervalMs = readVariable(env, 'TRC20_POLL_INTERVAL_MS', z.coerce.number().int().min(10).max(600_000));
  const rps = readVariable(env, 'TRC20_RPS', z.coerce.number().positive().max(10_000));
  if (rpcUrl === undefined) {
    const stray = LIVE_ONLY.find((v) => env[v] !== undefined && env[v] !== '');
    if (stray) throw new FamilyConfigError(stray, `is a live chain setting and needs ${rpcVariable} (on devnet it would be ignored); set ${rpcVariable} or unset ${stray}`);
    return null;
  }
  const options: TronConfig = {
    rpcUrl: rpcUrl.replace(/\/+$/, ''),
    ...(apiKey ? { apiKey } : {}),
    tokenAddress: tokenAddress ?? NETWORK_FACTS.TRC20.mainnetToken,
    confirmations: requiredConfirmations,
    feeLimitSun: new Decimal(feeLimit ?? '50').mul(SUN_PER_TRX).toNumber(),
    pollIntervalMs: pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    rps: rps ?? DEFAULT_RPS,
  };
  return { from: rpcVariable, options };
}

/** The registry's opaque options, checked again at the factory (they may come from a test, not the environment). */
export const tronConfigSchema = z.object({
  rpcUrl: z.string().url(),
  apiKey: z.string().min(1).optional(),
  tokenAddress: z.string().min(1),
  confirmations: z.number().int().min(1),
  feeLimitSun: z.number().int().positive(),
  pollIntervalMs: z.number().int().min(10),
  rps: z.number().positive().optional(),
  suspensionMs: z.number().int().min(0).optional(),
  solidEveryBlocks: z.number().int().min(1).optional(),
  headReuseMs: z.number().int().min(0).optional(),
  maxBlockRange: z.number().int().min(1).optional(),
  timeoutMs: z.number().int().min(1).optional(),
  retries: z.number().int().min(0).optional(),
  retryBackoff: z.object({ initialMs: z.number().int().min(0), maxMs: z.number().int().min(0) }).optional(),
  backoff: z.object({ initialMs: z.number().int().min(0), maxMs: z.number().int().min(0) }).optional(),
});
