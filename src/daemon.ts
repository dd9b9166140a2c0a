import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from './config/config';
import { NETWORK_CODES } from './domain/networks';
import { createLogger } from './observability/logger';
import { openDatabase } from './store/orm';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './store/embedded-postgres';
import { loadDaemonKeys } from './security/key-files';
import { SecretBox } from './security/secret-box';
import { DaemonClock } from './actors/daemon-clock';
import { NetworkSettingsRepo } from './store/repos/network-settings';
import { MerchantsRepo } from './store/repos/merchants';
import { Authenticator } from './grpc/auth';
import { startGrpcServer, type GrpcServer } from './grpc/server';
import { networkService } from './grpc/services/networks';
import { merchantService } from './grpc/services/merchants';
import type { ServiceContext } from './grpc/context';
import { SigningSecretCache } from './grpc/signing-secret-cache';

export interface Daemon {
  readonly config: Config;
  readonly logger: Logger;
  readonly orm: MikroORM;
  readonly grpcPort: number;
  readonly clock: DaemonClock;
  readonly operatorToken: string;
  /** Graceful: stop taking calls, let in-flight calls finish, stop actors, close the database. */
  stop(): Promise<void>;
}

export async function startDaemon(config: Config, options: { logger?: Logger } = {}): Promise<Daemon> {
  const logger = options.logger ?? createLogger(config.LOG_LEVEL, 'chainpay-daemon');
  const keys = loadDaemonKeys(config.dataDir, config);
  for (const file of keys.generated) logger.info({ file }, 'generated key material on first start');
  if (keys.generated.some((f) => f.endsWith('operator-token'))) {
    logger.info({ file: `${config.dataDir}/operator-token` }, 'operator token written; the chainpay CLI reads it from DATA_DIR');
  }

  let embedded: EmbeddedDatabase | null = null;
  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres(config.dataDir, logger);
    databaseUrl = embedded.url;
  }
  const orm = await openDatabase({ clientUrl: databaseUrl, logger });
  logger.info({ embedded: embedded !== null }, 'database ready, migrations applied');

  const clock = new DaemonClock();
  const box = new SecretBox(keys.masterKey);
  const networks = new NetworkSettingsRepo(() => new Map());
  await networks.seed(orm.em.fork(), NETWORK_CODES.map((c) => config.networks[c]), clock.now());
  const merchants = new MerchantsRepo(box);
  const secretCache = new SigningSecretCache((apiKey) => merchants.signingSecret(orm.em.fork(), apiKey));
  const auth = new Authenticator(secretCache, { operator: keys.operatorToken, service: config.SERVICE_TOKEN });

  const ctx: ServiceContext = {
    orm,
    logger,
    clock,
    auth,
    networks,
    merchants,
    defaultPlatformFeePercent: config.DEFAULT_PLATFORM_FEE_PERCENT,
    onMerchantCredentialsChanged: (apiKey) => secretCache.forget(apiKey),
  };

  const chainModeOf = (): string => config.CHAIN_MODE;
  const grpc: GrpcServer = await startGrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    register: (server) => {
      for (const svc of [networkService(ctx, chainModeOf), merchantService(ctx)]) server.addService(svc.definition, svc.implementation);
    },
  });
  grpc.health.setStatus('', 'SERVING');
  logger.info({ port: grpc.port, host: config.GRPC_HOST, chainMode: config.CHAIN_MODE }, 'gRPC server listening');

  let stopping: Promise<void> | null = null;
  return {
    config,
    logger,
    orm,
    grpcPort: grpc.port,
    clock,
    operatorToken: keys.operatorToken,
    stop: () =>
      (stopping ??= (async () => {
        grpc.health.setStatus('', 'NOT_SERVING');
        await grpc.shutdown(config.SHUTDOWN_GRACE_MS);
        await orm.close(true);
        if (embedded) await embedded.stop();
        logger.info('daemon stopped');
      })()),
  };
}
