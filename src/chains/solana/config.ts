import { z } from 'zod';
import { FamilyConfigError } from '../errors';

/** The real USDT mint on Solana mainnet (DESIGN.md, token ids). */
export const SOLANA_USDT_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY2ndRqUqgfYh9p';
/** USDT has 6 decimals on Solana; init() refuses a mint with any other. */
export const SOLANA_TOKEN_DECIMALS = 6;

/** SOLANA_MIN_PRIORITY_FEE's default, micro-lamports per compute unit (priority-fee.ts). */
export const DEFAULT_MIN_PRIORITY_FEE = 100_000;

const base58Key = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'must be a base58 Solana address');

/**
 * The SOLANA family's own environment (solanaFamily.readLive, src/chains/solana/family.ts). Present only with SOLANA_RPC_URL; the other SOLANA_* live settings
 * without it are refused (they would be silently ignored on devnet).
 */
const schema = z.object({
  /** A getBlock-capable JSON-RPC endpoint (docs/chains.md, SOLANA: providers and cost). */
  SOLANA_RPC_URL: z.string().url(),
  SOLANA_TOKEN_MINT: base58Key.default(SOLANA_USDT_MINT),
  /** Poll of the finalized slot once caught up; mainnet finalizes ~2.5 slots a second. */
  SOLANA_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(600_000).default(1000),
  /** Most slots read per getBlocks call while catching up. */
  SOLANA_MAX_SLOT_RANGE: z.coerce.number().int().min(1).max(500_000).default(1000),
  /** getBlock calls in flight at once (default SOLANA_BLOCK_CONCURRENCY_DEFAULT); optional so that option literals need not name it. */
  SOLANA_BLOCK_CONCURRENCY: z.coerce.number().int().min(1).max(32).optional(),
  /** Ceiling of the payout priority fee (micro-lamports per compute unit), whatever recent fees say. */
  SOLANA_MAX_PRIORITY_FEE: z.coerce.number().int().min(0).max(100_000_000).default(1_000_000),
  /** Floor of the payout priority fee (micro-lamports per compute unit; default DEFAULT_MIN_PRIORITY_FEE): recent fees of our accounts are mostly 0. Optional so that option literals need not name it. */
  SOLANA_MIN_PRIORITY_FEE: z.coerce.number().int().min(0).max(100_000_000).optional(),
});

/** getBlock calls in flight while the watch reads ahead: 4 mainnet blocks (~12 MB) cover ~1.6 s of provider latency. */
export const SOLANA_BLOCK_CONCURRENCY_DEFAULT = 4;

export type SolanaLiveOptions = z.infer<typeof schema>;

const VARIABLES = Object.keys(schema.shape) as (keyof SolanaLiveOptions)[];

/** SOLANA's live options from the environment, or undefined when SOLANA_RPC_URL is unset. Throws FamilyConfigError naming the variable. */
export function parseSolanaEnv(env: Readonly<Record<string, string | undefined>>): SolanaLiveOptions | undefined {
  const set = Object.fromEntries(VARIABLES.filter((v) => env[v] !== undefined && env[v] !== '').map((v) => [v, env[v]]));
  if (set.SOLANA_RPC_URL === undefined) {
    const stray = Object.keys(set)[0];
    if (stray) throw new FamilyConfigError(stray, 'is a live chain setting and needs SOLANA_RPC_URL (on devnet it would be ignored); set SOLANA_RPC_URL or unset it');
    if (env.SOLANA_TOKEN_ADDRESS) throw new FamilyConfigError('SOLANA_TOKEN_ADDRESS', 'SOLANA names its token SOLANA_TOKEN_MINT');
    return undefined;
  }
  if (env.SOLANA_TOKEN_ADDRESS) throw new FamilyConfigError('SOLANA_TOKEN_ADDRESS', 'SOLANA names its token SOLANA_TOKEN_MINT: set that instead');
  const parsed = schema.safeParse(set);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new FamilyConfigError(String(issue?.path[0] ?? 'SOLANA_RPC_URL'), issue?.message ?? 'invalid');
  }
  // A cap below the default floor just lowers the price (the cap wins); both given and crossed is a mistake.
  if (parsed.data.SOLANA_MIN_PRIORITY_FEE !== undefined && parsed.data.SOLANA_MIN_PRIORITY_FEE > parsed.data.SOLANA_MAX_PRIORITY_FEE) {
    throw new FamilyConfigError('SOLANA_MIN_PRIORITY_FEE', `is above SOLANA_MAX_PRIORITY_FEE (${parsed.data.SOLANA_MAX_PRIORITY_FEE}); lower it or raise the cap`);
  }
  return parsed.data;
}

/** The registry's `live` options are opaque: this checks they are SOLANA's (a programming fault otherwise). */
export function solanaOptions(options: unknown): SolanaLiveOptions {
  const parsed = schema.safeParse(options);
  if (!parsed.success)
    throw new FamilyConfigError(
      String(parsed.error.issues[0]?.path[0] ?? 'SOLANA_RPC_URL'),
      options === undefined ? 'required for SOLANA on a real chain' : (parsed.error.issues[0]?.message ?? 'invalid'),
    );
  return parsed.data;
}
