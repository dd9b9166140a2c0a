import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from './domain/clock';
import type { NetworkCode } from './domain/networks';
import type { Config } from './config/config';
import { runnableNetworks } from './config/chain-mode';
import { DerivationThread } from './chains/derivation/derivation-thread';
import { PgDevnetStore } from './chains/devnet/pg-store';
import { createChainAdapters, type ChainAdapters } from './chains/registry';
import type { ChainAdapter, RpcObserver } from './chains/types';
import { RawSql } from './store/raw-sql';
import type { DeriveRange } from './daemon-options';

/** The daemon's chains: one adapter per runnable network, built by its family (config.families). */
export interface DaemonChains extends ChainAdapters {
  /** The networks that run: every enabled one on devnet; on live those configured for their real chain. */
  readonly enabled: NetworkCode[];
  /** Both derivations of a range of deposit addresses for the pools' refills. */
  readonly deriveRange: DeriveRange;
  close(): Promise<void>;
}

export interface DaemonChainsInput {
  readonly config: Config;
  readonly mnemonic: string;
  readonly clock: Clock;
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly onRpc: RpcObserver;
}

/** Builds (not yet init()) every runnable network's adapter; generic over the registered families. */
export function createDaemonChains({ config, mnemonic, clock, orm, logger, onRpc }: DaemonChainsInput): DaemonChains {
  const livemode = config.CHAIN_MODE === 'live';
  const enabled = runnableNetworks(config.CHAIN_MODE, config.networks);
  const keys = { ...config.depositKeys, mnemonic };
  // The pools' refills derive on a thread of their own, with the same codecs and key material.
  const derivation = new DerivationThread(keys);
  const chains = createChainAdapters({
    networks: enabled,
    mode: config.CHAIN_MODE,
    keys,
    clock,
    families: config.families,
    devnet: {
      // In the database, so a standby continues the same chains; DATA_DIR/devnet only holds an
      // older version's journals, imported once.
      store: new PgDevnetStore(new RawSql(orm)),
      legacyJournalDir: path.join(config.dataDir, 'devnet'),
      logger: logger.child({ component: 'devnet' }),
      blockIntervalMs: config.devnet.blockIntervalMs,
      hotWalletUsdt: config.devnet.hotWalletUsdt,
      finalityDepth: Object.fromEntries(enabled.map((c) => [c, config.networks[c].requiredConfirmations])),
    },
    live: livemode ? Object.fromEntries(enabled.map((c) => [c, config.networks[c].live?.options])) : undefined,
    onRpc,
    logger: logger.child({ component: 'chains' }),
  });
  // The derivation thread rebuilds the built-in families' codecs; a family registered at run time
  // (a test's) derives here, by the same two implementations of its codec.
  const deriveRange: DeriveRange = (network, from, count) =>
    config.families.isBuiltIn(network) ? derivation.derive(network, from, count) : deriveInProcess(chains.adapters.get(network)!, from, count);
  return { ...chains, enabled, deriveRange, close: () => derivation.close() };
}

async function deriveInProcess(adapter: ChainAdapter, from: number, count: number): Promise<{ addresses: string[]; check: string[] }> {
  const addresses = adapter.deriveDepositAddresses ? adapter.deriveDepositAddresses(from, count) : Array.from({ length: count }, (_, k) => adapter.deriveDepositAddress(from + k));
  return { addresses, check: await adapter.crossCheckDepositAddresses(from, count) };
}
