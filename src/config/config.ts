import path from 'node:path';
import Decimal from 'decimal.js';
import { z } from 'zod';
import { NETWORK_CODES, type NetworkCode } from '../domain/networks';
import { NETWORK_DEFAULTS, type NetworkDefaults } from './network-defaults';

import type { KeyMaterial } from '../chains/codec';
import { readDevnetConfig, type DevnetConfig } from '../chains/devnet/config';
import { FamilyConfigError } from '../chains/errors';
import { builtInFamilies, type FamilyRegistry } from '../chains/families';
import type { FamilyEnv, LiveSettings } from '../chains/family';
import { ConfigError } from './errors';
import { chooseChainMode, type ChainMode } from './chain-mode';

export { ConfigError };

/** Fits the database's decimal(38,18): at most 20 integer digits and 18 decimals. */
const decimalString = z.string().regex(/^\d{1,20}(\.\d{1,18})?$/, 'must be a non-negative decimal like "1.5" (at most 20 integer digits and 18 decimals)');
const percent = decimalString.refine((v) => new Decimal(v).lte(100), 'must be at most 100');
const port = z.coerce.number().int().min(0).max(65535);
const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');

const baseSchema = z.object({
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().min(1).default('.chainpay'),
  GRPC_PORT: port.default(50051),
  GRPC_HOST: z.string().min(1).default('127.0.0.1'),
  HTTP_PORT: port.default(8080),
  PUBLIC_URL: z.string().url().optional(),
  METRICS_PORT: port.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Unset: pretty at a terminal in development, JSON otherwise (src/lib/log-format.ts). */
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  /** Optional: the mode follows the RPC settings (chain-mode.ts); stating it may not contradict them. */
  CHAIN_MODE: z.enum(['devnet', 'live']).optional(),
  MASTER_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)')
    .optional(),
  HD_MNEMONIC: z.string().min(1).optional(),
  OPERATOR_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  SERVICE_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  DEFAULT_PLATFORM_FEE_PERCENT: percent.default('1'),
  LATE_PAYMENT_WINDOW_MINUTES: z.coerce.number().int().min(0).default(1440),
  ADDRESS_POOL_MIN_FREE: z.coerce.number().int().min(1).default(50),
  ADDRESS_POOL_BATCH: z.coerce.number().int().min(1).default(200),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: flag.default(false),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10000),
  /** A running watcher whose RPC is unhealthy (or lags) this long turns its gRPC health NOT_SERVING. */
  WATCHER_UNHEALTHY_AFTER_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  /** lag_seconds above this counts as trouble for the watcher's health. */
  WATCHER_MAX_LAG_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  /** Payout steps (sign, broadcast, status check) running at once in one daemon. */
  PAYOUT_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(8),
  /** How often a sent payout's status is checked; default 250 ms on devnet, 5000 ms otherwise. */
  PAYOUT_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(600_000).optional(),
  /** A payout still pending this long after signing is replaced with a higher fee (EVM). */
  PAYOUT_BUMP_AFTER_MS: z.coerce.number().int().min(1000).default(300_000),
});

export interface NetworkConfig extends NetworkDefaults {
  readonly code: NetworkCode;
  readonly enabled: boolean;
  /** The network's real-chain settings as its family read them; null: not configured for a real chain. */
  readonly live: LiveSettings | null;
  /**
   * The database settings whose `<CODE>_*` variable was set (`enabled` for `<CODE>_ENABLED`): only
   * these overwrite the stored row at start; the others keep what an operator changed at run time.
   */
  readonly fromEnvironment: readonly NetworkSettingName[];
}

export type NetworkSettingName = keyof NetworkDefaults | 'enabled';

export type Config = Omit<z.infer<typeof baseSchema>, 'CHAIN_MODE'> & {
  /** Resolved: devnet unless a network's RPC is configured (DESIGN.md, Embedded defaults). */
  readonly CHAIN_MODE: ChainMode;
  /** The variable that decided CHAIN_MODE (`CHAIN_MODE`, or the LiveSettings.from of the first live network); null for the default. */
  readonly chainModeFrom: string | null;
  readonly dataDir: string;
  readonly publicUrl: string;
  readonly networks: Readonly<Record<NetworkCode, NetworkConfig>>;
  /** Which family runs each network; its definitions read the family variables above. */
  readonly families: FamilyRegistry;
  /** Key material the families read (watch-only xpubs); the mnemonic comes from the key files. */
  readonly depositKeys: Partial<KeyMaterial>;
  readonly devnet: DevnetConfig;
};

export interface LoadConfigOptions {
  /** Default: the built-in families. A test registers its own family with `FamilyRegistry.builtIn().with(family)`. */
  readonly families?: FamilyRegistry;
}

function networkConfig(env: FamilyEnv, code: NetworkCode, families: FamilyRegistry): NetworkConfig {
  const d = NETWORK_DEFAULTS[code];
  const fromEnvironment: NetworkSettingName[] = [];
  const read = <T>(suffix: string, schema: z.ZodType<T>, fallback: T, setting?: NetworkSettingName): T => {
    const variable = `${code}_${suffix}`;
    const raw = env[variable];
    if (raw === undefined || raw === '') return fallback;
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw new ConfigError(variable, parsed.error.issues[0]?.message ?? 'invalid');
    if (setting) fromEnvironment.push(setting);
    return parsed.data;
  };
  const enabled = read('ENABLED', flag, true, 'enabled');
  const configured = read('CONFIRMATIONS', z.coerce.number().int().min(1).max(10000), d.requiredConfirmations, 'requiredConfirmations');
  const live = families.of(code).readLive(env, { network: code, requiredConfirmations: configured });
  // A live family may default lower than devnet's default (TON: 1); a set variable always wins.
  const requiredConfirmations = fromEnvironment.includes('requiredConfirmations') ? configured : (live?.requiredConfirmations ?? configured);
  return {
    code,
    enabled,
    buyerNetworkFee: read('BUYER_NETWORK_FEE', decimalString, d.buyerNetworkFee, 'buyerNetworkFee'),
    withdrawalFee: read('WITHDRAWAL_FEE', decimalString, d.withdrawalFee, 'withdrawalFee'),
    minInvoice: read('MIN_INVOICE', decimalString, d.minInvoice, 'minInvoice'),
    minWithdrawal: read('MIN_WITHDRAWAL', decimalString, d.minWithdrawal, 'minWithdrawal'),
    requiredConfirmations,
    fromEnvironment,
    live,
  };
}

/** Environment -> typed, validated configuration. Throws ConfigError naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: LoadConfigOptions = {}): Config {
  try {
    return parseConfig(env, options.families ?? builtInFamilies());
  } catch (e) {
    // A family's variable: the same refusal, named the same way (exit 78).
    if (e instanceof FamilyConfigError) throw new ConfigError(e.variable, e.reason);
    throw e;
  }
}

function parseConfig(env: NodeJS.ProcessEnv, families: FamilyRegistry): Config {
  const cleaned: FamilyEnv = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const parsed = baseSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(String(issue.path[0] ?? 'environment'), issue.message);
  }
  const base = parsed.data;
  const devnet = readDevnetConfig(cleaned);
  const depositKeys = Object.assign({}, ...families.families().map((f) => f.readKeys?.(cleaned) ?? {})) as Partial<KeyMaterial>;
  const networks = Object.fromEntries(NETWORK_CODES.map((c) => [c, networkConfig(cleaned, c, families)])) as Record<NetworkCode, NetworkConfig>;
  const liveFrom = NETWORK_CODES.flatMap((c) => (networks[c].live ? [networks[c].live.from] : []));
  const chainMode = chooseChainMode(cleaned.CHAIN_MODE, liveFrom);
  // Lifting the webhook address guard lets anyone who can set a webhook URL reach internal hosts:
  // local testing only, never on a live daemon.
  if (base.WEBHOOK_ALLOW_PRIVATE_TARGETS && chainMode.mode === 'live') {
    throw new ConfigError('WEBHOOK_ALLOW_PRIVATE_TARGETS', `must not be set in live mode (${chainMode.from} is set; it turns off the webhook address guard; local testing only)`);
  }
  return {
    ...base,
    CHAIN_MODE: chainMode.mode,
    chainModeFrom: chainMode.from,
    dataDir: path.resolve(base.DATA_DIR),
    publicUrl: (base.PUBLIC_URL ?? `http://127.0.0.1:${base.HTTP_PORT}`).replace(/\/+$/, ''),
    networks,
    families,
    depositKeys,
    devnet,
  };
}
