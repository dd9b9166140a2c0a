import { Address } from '@ton/core';
import { z } from 'zod';
import { NETWORK_FACTS } from '../../domain/networks';
import { FamilyConfigError } from '../errors';
import type { FamilyEnv, FamilyNetwork, LiveSettings } from '../family';
import { readVariable } from '../family-env';

/** What the TON adapter runs on (the family's LiveSettings.options). */
export interface TonLiveOptions {
  readonly rpcUrl: string;
  readonly apiKey?: string;
  readonly jettonMaster: string;
  readonly pollIntervalMs: number;
  /** getTransactions page size (toncenter serves at most 100). */
  readonly pageSize?: number;
  /** valid_until = chain time + this, for payouts. */
  readonly payoutTtlSeconds?: number;
  /** TON_RPS: calls per second at most (default: tonRpsDefault). */
  readonly rps?: number;
}

/** toncenter's budget: 1 call/s without an API key, 10 with the free key. */
export function tonRpsDefault(apiKey: string | undefined): number {
  return apiKey ? 10 : 1;
}

/** Settings only the real chain reads: given without TON_RPC_URL they would be silently ignored. */
const LIVE_ONLY = ['TON_API_KEY', 'TON_JETTON_MASTER', 'TON_POLL_INTERVAL_MS', 'TON_RPS'] as const;

const tonAddress = z.string().refine((s) => Address.isFriendly(s) || Address.isRaw(s), 'must be a TON address');

/**
 * TON's environment (docs/chains.md, TON live):
 *   TON_RPC_URL           a toncenter v2 JSON-RPC endpoint; setting it makes TON live
 *   TON_API_KEY           toncenter API key (X-API-Key)
 *   TON_JETTON_MASTER     the jetton master whose jettons count (default: the real USDT master)
 *   TON_POLL_INTERVAL_MS  how often our jetton wallet is read (default 2000 ms)
 *   TON_RPS               calls per second at most (default 1 without TON_API_KEY, 10 with: toncenter's limits)
 * (`TON_CONFIRMATIONS` is every network's, read by src/config: the invoices' required masterchain
 * blocks; the adapter reports each transfer's count and finality itself, final from the first.)
 */
export function readTonLive(env: FamilyEnv, { network }: FamilyNetwork): LiveSettings | null {
  const rpcUrl = readVariable(env, 'TON_RPC_URL', z.string().url());
  const apiKey = readVariable(env, 'TON_API_KEY', z.string().min(1));
  const jettonMaster = readVariable(env, 'TON_JETTON_MASTER', tonAddress);
  const pollIntervalMs = readVariable(env, 'TON_POLL_INTERVAL_MS', z.coerce.number().int().min(10).max(600_000));
  const rps = readVariable(env, 'TON_RPS', z.coerce.number().int().min(1).max(1000));
  if (rpcUrl === undefined) {
    const stray = LIVE_ONLY.find((v) => env[v] !== undefined && env[v] !== '');
    if (stray) throw new FamilyConfigError(stray, 'is a live TON setting and needs TON_RPC_URL (on devnet it would be ignored); set TON_RPC_URL or unset it');
    return null;
  }
  const options: TonLiveOptions = {
    rpcUrl,
    ...(apiKey ? { apiKey } : {}),
    jettonMaster: jettonMaster ?? NETWORK_FACTS[network].mainnetToken,
    pollIntervalMs: pollIntervalMs ?? 2000,
    rps: rps ?? tonRpsDefault(apiKey),
  };
  // TON is final after one masterchain block (no reorgs): TON_CONFIRMATIONS defaults to 1 live.
  return { from: 'TON_RPC_URL', options, requiredConfirmations: 1 };
}

const optionsSchema = z.object({
  rpcUrl: z.string().url(),
  apiKey: z.string().min(1).optional(),
  jettonMaster: tonAddress,
  pollIntervalMs: z.number().int().min(10),
  pageSize: z.number().int().min(2).max(100).optional(),
  payoutTtlSeconds: z.number().int().min(10).optional(),
  rps: z.number().int().min(1).max(1000).optional(),
});

const OPTION_VARIABLE: Record<string, string> = {
  rpcUrl: 'TON_RPC_URL',
  apiKey: 'TON_API_KEY',
  jettonMaster: 'TON_JETTON_MASTER',
  pollIntervalMs: 'TON_POLL_INTERVAL_MS',
  rps: 'TON_RPS',
};

/** The factory's opaque options -> TonLiveOptions (validated again: tests call the factory directly), naming the variable at fault. */
export function parseTonOptions(options: unknown): TonLiveOptions {
  if (options === undefined) throw new FamilyConfigError('TON_RPC_URL', 'required for live TON');
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? 'rpcUrl');
    throw new FamilyConfigError(OPTION_VARIABLE[field] ?? field, issue?.message ?? 'invalid');
  }
  return parsed.data;
}
