import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { killAt } from '../actors/withdrawals/kill-point';
import type { ChainAdapter } from '../chains/types';
import type { NetworkCode } from '../domain/networks';
import { RawSql } from '../store/raw-sql';
import { treasuryConfig } from './config';
import { TreasuryMetrics } from './metrics';
import { Treasury } from './treasury';

export interface TreasuryHandle {
  readonly treasury: Treasury;
  /** Adds the treasury's series to the daemon's registry. */
  register(registry: Registry): void;
  stop(): Promise<void>;
}

/**
 * The treasury's one wiring point (the composition root calls this and stop()): config from the
 * environment, metrics, sweep actors resumed, the policy timer started. CHAINPAY_TEST_KILL_AT=
 * sweep:<step> (topup-signed, topup-sent, transfer-signed, transfer-sent) kills the process there
 * (the crash tests).
 */
export async function startTreasury(deps: {
  orm: MikroORM;
  logger: Logger;
  clock: { now(): Date };
  adapters: ReadonlyMap<NetworkCode, ChainAdapter>;
  livemode: boolean;
  env?: NodeJS.ProcessEnv;
}): Promise<TreasuryHandle> {
  const env = deps.env ?? process.env;
  const logger = deps.logger.child({ component: 'treasury' });
  const kill = env.CHAINPAY_TEST_KILL_AT?.startsWith('sweep:') ? env.CHAINPAY_TEST_KILL_AT.slice('sweep:'.length) : null;
  let metrics: TreasuryMetrics | null = null;
  const treasury = new Treasury({
    orm: deps.orm,
    logger,
    clock: deps.clock,
    adapters: deps.adapters,
    config: treasuryConfig(env),
    pollIntervalMs: deps.livemode ? 5_000 : 250,
    killAt: kill ? (step) => (step === kill ? killAt(logger, step as never) : Promise.resolve()) : undefined,
    onOutcome: (network, outcome, fee) => metrics?.outcome(network, outcome, fee),
  });
  metrics = new TreasuryMetrics(new RawSql(deps.orm).query, () => [...treasury.sweepers().keys()]);
  await treasury.start();
  return { treasury, register: (registry) => metrics.register(registry), stop: () => treasury.stop() };
}
