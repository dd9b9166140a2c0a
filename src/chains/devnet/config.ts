import { z } from 'zod';
import type { FamilyEnv } from '../family';
import { readVariable } from '../family-env';

/**
 * The devnet simulation's environment:
 *   DEVNET_BLOCK_MS   an empty block this often (default 2000); 0: only pay/mine/reorg make blocks
 */
export interface DevnetConfig {
  readonly blockIntervalMs: number;
}

/** Throws FamilyConfigError naming the variable. */
export function readDevnetConfig(env: FamilyEnv): DevnetConfig {
  return { blockIntervalMs: readVariable(env, 'DEVNET_BLOCK_MS', z.coerce.number().int().min(0)) ?? 2000 };
}
