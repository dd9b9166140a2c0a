import { z } from 'zod';
import type { FamilyEnv } from '../family';
import { readVariable } from '../family-env';

/**
 * The devnet simulation's environment:
 *   DEVNET_BLOCK_MS   an empty block this often (default 2000); 0: only pay/mine/reorg make blocks
 *   DEVNET_HOT_WALLET_USDT  the USDT each devnet hot wallet starts with (a decimal); its balance is
 *                     then that plus what is sent to it minus what it paid. Unset: the devnet hot
 *                     wallets never run short (the walk-through needs no funding step).
 */
export interface DevnetConfig {
  readonly blockIntervalMs: number;
  /** null: unlimited. */
  readonly hotWalletUsdt: string | null;
}

/** Throws FamilyConfigError naming the variable. */
export function readDevnetConfig(env: FamilyEnv): DevnetConfig {
  return {
    blockIntervalMs: readVariable(env, 'DEVNET_BLOCK_MS', z.coerce.number().int().min(0)) ?? 2000,
    hotWalletUsdt: readVariable(env, 'DEVNET_HOT_WALLET_USDT', z.string().regex(/^\d{1,18}(\.\d{1,18})?$/, 'a non-negative decimal, e.g. 100')) ?? null,
  };
}
