import Decimal from 'decimal.js';
import { z } from 'zod';
import { NETWORK_FACTS } from '../../domain/networks';
import { TronConfigError } from './errors';

/** TRX has 6 decimals: 1 TRX = 1,000,000 sun (fee_limit is given in sun). */
const SUN_PER_TRX = 1_000_000;

/**
 * TRC20's environment, parsed by the family itself:
 *   TRC20_RPC_URL        a full node's HTTP API base (https://api.trongrid.io, or an own java-tron node)
 *   TRC20_API_KEY        optional; sent as the TRON-PRO-API-KEY header (TronGrid)
 *   TRC20_TOKEN_ADDRESS  the TRC20 that counts (default: mainnet USDT TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t)
 *   TRC20_CONFIRMATIONS  depth at which a solidified block is final (default 20)
 *   TRC20_FEE_LIMIT      TRX a payout may burn for energy at most (default 50)
 *   TRC20_POLL_INTERVAL_MS  head polling once caught up (default 3000: one block)
 */
const schema = z.object({
  TRC20_RPC_URL: z.string().url(),
  TRC20_API_KEY: z.string().min(1).optional(),
  TRC20_TOKEN_ADDRESS: z.string().min(1).default(NETWORK_FACTS.TRC20.mainnetToken),
  TRC20_CONFIRMATIONS: z.coerce.number().int().min(1).max(10_000).default(20),
  TRC20_FEE_LIMIT: z
    .string()
    .regex(/^\d{1,6}(\.\d{1,6})?$/, 'must be TRX as a decimal like "50" (at most 6 decimals)')
    // Zod runs refinements even after a failed regex: no Decimal of a non-number here.
    .refine((v) => !/^0+(\.0+)?$/.test(v), 'must be above 0')
    .default('50'),
  TRC20_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(600_000).default(3000),
});

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
  /** Blocks per catch-up step (2 HTTP calls each). Default 20. */
  readonly maxBlockRange?: number;
  /** How long a solidified head read is reused before asking again. Default 3000 ms. */
  readonly solidHeadMaxAgeMs?: number;
  /** Per-request timeout. Default 15000 ms. */
  readonly timeoutMs?: number;
  /** HTTP retries of one request on 429/5xx/network failures before the caller sees an error. Default 5. */
  readonly retries?: number;
  /** Backoff of the client's retries (Retry-After wins when the node sends it). Default 250 ms doubling to 10 s. */
  readonly retryBackoff?: { readonly initialMs: number; readonly maxMs: number };
  /** The watcher's backoff between failed steps. Default 500 ms doubling to 30 s. */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
}

/**
 * TRC20's environment -> its config; null when TRC20_RPC_URL is unset (TRC20 is then not live).
 * Throws TronConfigError naming the variable.
 */
export function parseTronEnv(env: Readonly<Record<string, string | undefined>>): TronConfig | null {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith('TRC20_') && v !== undefined && v !== ''));
  if (cleaned.TRC20_RPC_URL === undefined) return null;
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new TronConfigError(String(issue.path[0] ?? 'TRC20_RPC_URL'), issue.message);
  }
  const c = parsed.data;
  return {
    rpcUrl: c.TRC20_RPC_URL.replace(/\/+$/, ''),
    ...(c.TRC20_API_KEY ? { apiKey: c.TRC20_API_KEY } : {}),
    tokenAddress: c.TRC20_TOKEN_ADDRESS,
    confirmations: c.TRC20_CONFIRMATIONS,
    feeLimitSun: new Decimal(c.TRC20_FEE_LIMIT).mul(SUN_PER_TRX).toNumber(),
    pollIntervalMs: c.TRC20_POLL_INTERVAL_MS,
  };
}

/** The registry's opaque options, checked again at the factory (they may come from a test, not the environment). */
export const tronConfigSchema = z.object({
  rpcUrl: z.string().url(),
  apiKey: z.string().min(1).optional(),
  tokenAddress: z.string().min(1),
  confirmations: z.number().int().min(1),
  feeLimitSun: z.number().int().positive(),
  pollIntervalMs: z.number().int().min(10),
  maxBlockRange: z.number().int().min(1).optional(),
  solidHeadMaxAgeMs: z.number().int().min(0).optional(),
  timeoutMs: z.number().int().min(1).optional(),
  retries: z.number().int().min(0).optional(),
  retryBackoff: z.object({ initialMs: z.number().int().min(0), maxMs: z.number().int().min(0) }).optional(),
  backoff: z.object({ initialMs: z.number().int().min(0), maxMs: z.number().int().min(0) }).optional(),
});
