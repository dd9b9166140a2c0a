import { z } from 'zod';
import { NETWORK_FACTS } from '../../domain/networks';
import { TonConfigError } from './errors';

/** TON's own settings, as environment variable -> meaning (docs/chains.md, TON). */
const envSchema = z.object({
  TON_RPC_URL: z.string().url(),
  TON_API_KEY: z.string().min(1).optional(),
  TON_JETTON_MASTER: z.string().min(1).default(NETWORK_FACTS.TON.mainnetToken),
  TON_CONFIRMATIONS: z.coerce.number().int().min(1).max(10000).default(1),
  TON_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(600_000).default(2000),
});

/** What the TON adapter runs on (registry `live` options). */
export interface TonLiveOptions {
  readonly rpcUrl: string;
  readonly apiKey?: string;
  readonly jettonMaster: string;
  readonly confirmations: number;
  readonly pollIntervalMs: number;
  /** getTransactions page size (toncenter serves at most 100). */
  readonly pageSize?: number;
  /** valid_until = chain time + this, for payouts. */
  readonly payoutTtlSeconds?: number;
}

const optionsSchema = z.object({
  rpcUrl: z.string().url(),
  apiKey: z.string().min(1).optional(),
  jettonMaster: z.string().min(1),
  confirmations: z.number().int().min(1),
  pollIntervalMs: z.number().int().min(10),
  pageSize: z.number().int().min(2).max(100).optional(),
  payoutTtlSeconds: z.number().int().min(10).optional(),
});

const OPTION_VARIABLE: Record<string, string> = {
  rpcUrl: 'TON_RPC_URL',
  apiKey: 'TON_API_KEY',
  jettonMaster: 'TON_JETTON_MASTER',
  confirmations: 'TON_CONFIRMATIONS',
  pollIntervalMs: 'TON_POLL_INTERVAL_MS',
};

/** The environment -> TON options; undefined without TON_RPC_URL (TON then runs on devnet or is disabled). */
export function tonConfigFromEnv(env: Readonly<Record<string, string | undefined>>): TonLiveOptions | undefined {
  const own = Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith('TON_') && v !== undefined && v !== ''));
  if (own.TON_RPC_URL === undefined) {
    // Given without TON_RPC_URL they would be silently ignored (devnet reads none of them).
    const stray = ['TON_API_KEY', 'TON_JETTON_MASTER'].find((v) => own[v] !== undefined);
    if (stray) throw new TonConfigError(stray, 'is a live TON setting and needs TON_RPC_URL');
    return undefined;
  }
  const parsed = envSchema.safeParse(own);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TonConfigError(String(issue?.path[0] ?? 'TON_RPC_URL'), issue?.message ?? 'invalid');
  }
  const e = parsed.data;
  return {
    rpcUrl: e.TON_RPC_URL,
    ...(e.TON_API_KEY ? { apiKey: e.TON_API_KEY } : {}),
    jettonMaster: e.TON_JETTON_MASTER,
    confirmations: e.TON_CONFIRMATIONS,
    pollIntervalMs: e.TON_POLL_INTERVAL_MS,
  };
}

/** The registry's opaque options -> TonLiveOptions, naming the variable at fault. */
export function parseTonOptions(options: unknown): TonLiveOptions {
  if (options === undefined) throw new TonConfigError('TON_RPC_URL', 'required for live TON');
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? 'rpcUrl');
    throw new TonConfigError(OPTION_VARIABLE[field] ?? field, issue?.message ?? 'invalid');
  }
  return parsed.data;
}
