import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from './config/config';
import { NETWORK_CODES } from './domain/networks';
import { createLogger } from './observability/logger';
import { openDatabase } from './store/orm';
import { acquireEngineLock } from './store/engine-lock';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './store/embedded-postgres';
import { loadDaemonKeys } from './security/key-files';
import { verifyKeyFingerprintsAt } from './security/key-fingerprints';
import { verifyDatabaseModeAt } from './security/database-mode';
import { SecretBox } from './security/secret-box';
import { DaemonClock } from './actors/daemon-clock';
import { NetworkSettingsRepo } from './store/repos/network-settings';
import { MerchantsRepo } from './store/repos/merchants';
import { Authenticator } from './grpc/auth';
import { startGrpcServer, type GrpcServer } from './grpc/server';
import { daemonServices } from './daemon-services';
import type { ServiceContext } from './grpc/context';
import { SigningSecretCache } from './grpc/signing-secret-cache';
import type { RpcObserver } from './chains/types';
import type { NetworkCode } from './domain/networks';
import { InvoiceActors } from './actors/invoices/invoice-actors';
import { Invoices } from './actors/invoices/invoices';
import { NetworkWatcher } from './actors/watchers/network-watcher';
import { PoolKeeper } from './actors/watchers/pool-keeper';
import { writeInvoiceEvents } from './webhooks/outbox';
import { WithdrawalActors } from './actors/withdrawals/withdrawal-actors';
import { Withdrawals } from './actors/withdrawals/withdrawals';
import { startTreasury } from './treasury/start';
import { Whitelist } from './actors/withdrawals/whitelist';
import { killPointFromEnv } from './actors/withdrawals/payout-steps';
import { depositKillPointFromEnv, killAt } from './actors/withdrawals/kill-point';
import { expiredPayoutWatch } from './actors/withdrawals/expired-payout-watch';
import { Refunds } from './actors/refunds/refunds';
import { WebhookDispatcher } from './webhooks/dispatcher';
import { PRIVATE_TARGETS_WARNING } from './webhooks/private-targets';
import { ActorActivity } from './actors/introspection/activity';
import { ActorDirectory } from './actors/introspection/actor-directory';
import { checkSubmittedWebhookUrl } from './webhooks/submission-check';
import { PoolMetrics } from './observability/pool-metrics';
import { DaemonMetrics } from './observability/metrics';
import { startDaemonMetricsServer } from './observability/metrics-server';
import { HealthMonitor } from './observability/health-monitor';
import { idleCollector } from './observability/idle-gc';
import { RequestLoad } from './lib/request-load';
import { releaseReservations } from './store/repos/address-pool';
import type { DaemonOptions, DeriveRange } from './daemon-options';
import { refuseUnrunnableLive } from './live-networks';
import { createDaemonChains } from './daemon-chains';

export type { DaemonOptions } from './daemon-options';
import { loadDevnetClockOffset, saveDevnetClockOffset } from './store/repos/devnet-clock-offset';
import { startDashboard } from './dashboard/start';

export interface Daemon {
  readonly config: Config;
  readonly logger: Logger;
  readonly orm: MikroORM;
  readonly grpcPort: number;
  readonly clock: DaemonClock;
  readonly operatorToken: string;
  /** The Prometheus `/metrics` port; null when METRICS_PORT is unset. */
  readonly metricsPort: number | null;
  /** Graceful: stop taking calls, let in-flight calls finish, stop actors, close the database. */
  stop(): Promise<void>;
}

export async function startDaemon(config: Config, options: DaemonOptions = {}): Promise<Daemon> {
  // Before anything is set up: no key material written, no database started.
  refuseUnrunnableLive(config);
  const logger = options.logger ?? createLogger(config.LOG_LEVEL, 'chainpay-daemon');
  const livemode = config.CHAIN_MODE === 'live';
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
  // A database of the other chain mode would mix simulated and real money (checked first: its
  // remedy, another database, also answers foreign keys); keys that are not the database's would
  // make stored secrets undecryptable and derive addresses from another seed. Refuse before
  // anything else (a standby too, before it waits for the lock).
  const dbUrl = databaseUrl;
  const wantedMode = { mode: config.CHAIN_MODE, from: config.chainModeFrom };
  const refuseForeign = async (record: boolean, cleanup: () => Promise<void>): Promise<void> => {
    try {
      const mode = await verifyDatabaseModeAt(dbUrl, wantedMode, { record });
      if (mode?.recorded) logger.info({ chainMode: mode.mode, inferred: mode.inferred }, 'chain mode recorded in the database');
      await verifyKeyFingerprintsAt(dbUrl, keys, { record });
    } catch (e) {
      await cleanup().catch((err: unknown) => logger.warn({ err }, 'cleanup after the start checks failed'));
      throw e;
    }
  };
  await refuseForeign(false, async () => void (await embedded?.stop()));
  // Only one daemon per database is the active engine (watchers, actors, dispatcher); others wait.
  let stopDaemon: () => Promise<void> = async () => undefined;
  const engineLock = await acquireEngineLock(databaseUrl, logger, (err) => (options.onEngineLockLost ?? (() => void stopDaemon()))(err));
  const orm = await openDatabase({ clientUrl: databaseUrl, logger });
  logger.info({ embedded: embedded !== null }, 'database ready, migrations applied');
  await refuseForeign(true, async () => {
    engineLock.stopping();
    await orm.close(true);
    await engineLock.release();
    await embedded?.stop();
  });

  // Live: real time only; nothing can move it (src/store/repos/devnet-clock-offset.ts).
  const clock = options.clock ?? new DaemonClock({ offsetMs: livemode ? 0 : await loadDevnetClockOffset(orm.em.fork()), fixed: livemode });
  if (clock.offset() > 0) {
    // A stored `devnet advance-time`: every timestamp from here is ahead of the wall clock; say so at start.
    logger.warn(
      { offsetSeconds: Math.floor(clock.offset() / 1000), now: clock.now().toISOString() },
      'the devnet clock is ahead of real time (devnet advance-time, stored); `chainpay devnet reset-time` goes back',
    );
  }
  const box = new SecretBox(keys.masterKey);

  // Metrics exist only once the actors do; RPC timings before that are dropped.
  let rpcSink: RpcObserver = () => undefined;
  // Devnet: every enabled network, simulated. Live: those configured for their real chain; the others are disabled.
  const chains = createDaemonChains({ config, mnemonic: keys.mnemonic, clock, orm, logger, onRpc: (o) => rpcSink(o) });
  const enabled = chains.enabled;
  if (livemode)
    logger.info({ live: enabled, disabled: NETWORK_CODES.filter((c) => !enabled.includes(c)) }, 'live mode: networks not configured for their real chain are disabled; no devnet control exists');
  for (const adapter of chains.adapters.values()) await adapter.init();
  const networks = new NetworkSettingsRepo(
    () => new Map([...chains.adapters].map(([code, a]) => [code, { tokenContract: a.tokenContract, tokenDecimals: a.tokenDecimals }])),
    undefined,
    (code) => chains.adapters.has(code),
  );
  await networks.seed(
    orm.em.fork(),
    NETWORK_CODES.map((c) => config.networks[c]),
    clock.now(),
  );
  // A run-time value kept from before may be below a live watcher's window: a reorg inside the gap
  // would reach credited payments and halt the watcher (never a silent loss), so say it loudly.
  for (const [code, adapter] of chains.adapters) {
    const required = adapter.mode === 'live' ? (await networks.get(() => orm.em.fork(), code))?.requiredConfirmations : undefined;
    if (required !== undefined && required < adapter.finalityDepth)
      logger.error(
        { network: code, requiredConfirmations: required, finalityDepth: adapter.finalityDepth },
        'required_confirmations is below the live finality depth: set it to at least the finality depth (chainpay networks set-fee --confirmations)',
      );
  }
  const merchants = new MerchantsRepo(box);
  const secretCache = new SigningSecretCache((apiKey) => merchants.signingSecret(orm.em.fork(), apiKey));
  const dashboard = startDashboard({ orm, box, publicUrl: config.publicUrl, options: options.dashboard });
  const auth = new Authenticator(secretCache, { operator: keys.operatorToken, service: config.SERVICE_TOKEN }, dashboard.sessions);
  // Never live: loadConfig refuses the flag there.
  if (config.WEBHOOK_ALLOW_PRIVATE_TARGETS) logger.warn(PRIVATE_TARGETS_WARNING);
  // Invoice and withdrawal creation in flight: payout steps and webhook bookkeeping yield to them (RequestLoad).
  const requestLoad = new RequestLoad();
  const webhooks = new WebhookDispatcher({
    orm,
    logger: logger.child({ component: 'webhooks' }),
    clock,
    merchants,
    allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    requestLoad,
    ...options.webhooks,
  });

  const watchers = new Map<NetworkCode, NetworkWatcher>();
  const invoiceActors = new InvoiceActors({
    orm,
    logger,
    clock,
    writeOutbox: (em, row, types) => writeInvoiceEvents(em, row, types, { publicUrl: config.publicUrl, livemode }, clock.now()),
    onClosed: () => undefined,
  });
  const poolMetrics = new PoolMetrics(orm, () => clock.now());
  const pools = new PoolKeeper({
    orm,
    logger,
    clock,
    adapters: chains.adapters,
    minFree: config.ADDRESS_POOL_MIN_FREE,
    batch: config.ADDRESS_POOL_BATCH,
    indexSpace: (network) => config.families.indexSpace(network),
    // Every network of the index space watches the new addresses (a payment on the wrong EVM network is seen too).
    onAdded: (network, added) => {
      poolMetrics.refilled(network, added.length);
      for (const code of config.families.sharingAddressesWith(network)) watchers.get(code)?.addWatched(added);
    },
    deriveElsewhere: (options.wrapDerivation ?? ((derive: DeriveRange) => derive))(chains.deriveRange),
  });
  // Addresses a previous engine reserved for invoices it never created go back to the pool.
  const unreserved = await releaseReservations(orm.em.fork());
  if (unreserved > 0) logger.info({ addresses: unreserved }, 'deposit address reservations of the previous engine released');
  const invoices = new Invoices({
    requestLoad,
    orm,
    logger,
    clock,
    actors: invoiceActors,
    adapters: chains.adapters,
    lateWindowMs: config.LATE_PAYMENT_WINDOW_MINUTES * 60_000,
    onAddressAllocated: (network) => pools.schedule(network),
    refillNow: (network) => pools.ensure(network, { urgent: true }),
    poolObserver: poolMetrics,
  });

  const payoutOptions = { concurrency: config.PAYOUT_CONCURRENCY, requestLoad, bumpAfterMs: config.PAYOUT_BUMP_AFTER_MS };
  const withdrawalActors = new WithdrawalActors({ orm, logger, clock, adapters: chains.adapters, livemode, killAt: killPointFromEnv(process.env.CHAINPAY_TEST_KILL_AT), ...payoutOptions });
  const treasury = await startTreasury({ orm, logger, clock, adapters: chains.adapters, livemode }); // src/treasury/: sweeps and the money accounts
  const whitelist = new Whitelist({ orm, clock, adapters: chains.adapters });
  const withdrawals = new Withdrawals({
    requestLoad,
    orm,
    logger,
    clock,
    actors: withdrawalActors,
    adapters: chains.adapters,
    whitelist,
    livemode,
    // Devnet blocks come at once (or every DEVNET_BLOCK_MS): poll payouts often there.
    pollIntervalMs: config.PAYOUT_POLL_INTERVAL_MS ?? (livemode ? 5_000 : 250),
  });
  // Refunds ride the withdrawal actors and payout steps: no second payout path.
  const refunds = new Refunds({
    orm,
    logger,
    clock,
    actors: withdrawalActors,
    adapters: chains.adapters,
    livemode,
    pollIntervalMs: config.PAYOUT_POLL_INTERVAL_MS ?? (livemode ? 5_000 : 250),
  });

  const restoreStarted = Date.now();
  const restored = await invoiceActors.restoreAll();
  logger.info({ restoredInvoices: restored, ms: Date.now() - restoreStarted }, 'invoice actors rehydrated');
  const watcherActivity = new ActorActivity('watcher', () => clock.now());
  const depositKillPoint = depositKillPointFromEnv(process.env.CHAINPAY_TEST_KILL_AT);
  const watchersStarted = Date.now();
  for (const [code, adapter] of chains.adapters) {
    const watcher = new NetworkWatcher({
      network: code,
      indexSpace: config.families.indexSpace(code),
      adapter,
      orm,
      logger: logger.child({ network: code }),
      clock,
      actors: invoiceActors,
      activity: watcherActivity,
      chainHead: chains.devnet.has(code) ? async () => chains.devnet.get(code)!.head().head : undefined,
      addressPool: () => pools.status(code),
      killAfterRecorded: depositKillPoint ? () => killAt(logger, depositKillPoint) : undefined,
      requiredConfirmations: async () => (await networks.get(() => orm.em.fork(), code))?.requiredConfirmations ?? config.networks[code].requiredConfirmations,
    });
    watchers.set(code, watcher);
    await pools.ensure(code);
    await watcher.start();
  }
  // Rescan from the saved cursors before any restored invoice may expire (DESIGN.md, Actors).
  await Promise.all([...watchers.values()].map((w) => w.waitCaughtUp(30_000)));
  const resumeStarted = Date.now();
  logger.info({ ms: resumeStarted - watchersStarted }, 'watchers started and caught up');
  const resumed = await invoiceActors.resumeAll();
  // Every restored actor took its RESUME (its state re-entered, its timer armed); only what fell due while down was committed.
  logger.info({ ...resumed, ms: Date.now() - resumeStarted }, 'invoice actors resumed');
  // Open withdrawals resume: a signed payout is rebroadcast or looked up, never signed anew.
  const restoredWithdrawals = await withdrawalActors.restoreAll();
  await withdrawalActors.resumeAll();
  // Payout versions replaced after an expiry stay watched for a day, looked up every 12 payout polls (1 minute live).
  const expiredPayouts = expiredPayoutWatch({ orm, logger, clock, adapters: chains.adapters, intervalMs: 12 * (config.PAYOUT_POLL_INTERVAL_MS ?? (livemode ? 5_000 : 250)) });
  expiredPayouts.start();
  // Pending deliveries resume from the outbox (after a crash too).
  webhooks.start();
  logger.info({ restoredInvoices: restored, restoredWithdrawals, networks: [...watchers.keys()] }, 'actors restored and watchers caught up');

  const advanceClock = async (seconds: number): Promise<{ now: Date; offsetMs: number }> => {
    const now = clock.advance(seconds * 1000);
    await saveDevnetClockOffset(orm.em.fork(), clock.offset(), now);
    logger.info(
      { seconds, now: now.toISOString(), offsetSeconds: Math.floor(clock.offset() / 1000) },
      'devnet clock advanced: it stays ahead of real time across restarts; `chainpay devnet reset-time` goes back',
    );
    return { now, offsetMs: clock.offset() };
  };
  const resetClock = async (): Promise<{ now: Date; offsetMs: number }> => {
    const previousSeconds = Math.floor(clock.offset() / 1000);
    const now = clock.reset();
    await saveDevnetClockOffset(orm.em.fork(), 0, now);
    logger.info({ previousOffsetSeconds: previousSeconds, now: now.toISOString() }, 'devnet clock reset to real time');
    return { now, offsetMs: 0 };
  };

  const ctx: ServiceContext = {
    orm,
    logger,
    clock,
    auth,
    networks,
    merchants,
    defaultPlatformFeePercent: config.DEFAULT_PLATFORM_FEE_PERCENT,
    onMerchantCredentialsChanged: (apiKey) => secretCache.forget(apiKey),
    publicUrl: config.publicUrl,
    livemode,
    invoices,
    invoiceActors,
    withdrawals,
    withdrawalActors,
    whitelist,
    refunds,
    adapters: chains.adapters,
    checkWebhookUrl: (url) => checkSubmittedWebhookUrl(url, { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, resolver: options.webhooks?.resolver }),
  };

  // Operator plane: actor introspection, watcher control, deposits, audit; health and metrics.
  const directory = new ActorDirectory({ orm, clock, invoices: invoiceActors, withdrawals: withdrawalActors, watchers, watcherActivity });
  const operatorStreams = new AbortController();
  let healthMonitor: HealthMonitor | null = null;
  const grpc: GrpcServer = await startGrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    logger,
    services: daemonServices({
      ctx,
      livemode,
      liveFinalityOf: (code) => {
        const adapter = chains.adapters.get(code as NetworkCode);
        return adapter?.mode === 'live' ? adapter.finalityDepth : null;
      },
      webhooks,
      send: { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, ca: options.webhooks?.ca, resolver: options.webhooks?.resolver },
      directory,
      operatorStreams: operatorStreams.signal,
      watchers,
      treasury: treasury.treasury,
      dashboard,
      devnet: chains.devnet,
      clock: { advance: advanceClock, reset: resetClock },
    }),
  });
  healthMonitor = new HealthMonitor({
    orm,
    logger,
    health: grpc.health,
    watchers,
    watcherActivity,
    watcherUnhealthyAfterMs: config.WATCHER_UNHEALTHY_AFTER_MS,
    watcherMaxLagSeconds: config.WATCHER_MAX_LAG_SECONDS,
  });
  await healthMonitor.start();
  // Full GCs while idle (needs node --expose-gc, as the start scripts run it): src/observability/idle-gc.ts.
  const idleGc = idleCollector(logger.child({ component: 'idle-gc' }));
  idleGc?.start();
  const metrics = new DaemonMetrics({ orm, logger, watchers, invoices: invoiceActors, withdrawals: withdrawalActors, watcherActivity, databaseUp: () => healthMonitor?.databaseUp() ?? false });
  rpcSink = (o) => metrics.observeRpc(o);
  poolMetrics.register(metrics.registry);
  treasury.register(metrics.registry);
  const metricsServer = await startDaemonMetricsServer({ host: config.GRPC_HOST, port: config.METRICS_PORT, defaultPort: options.defaultMetricsPort, registry: metrics.registry, logger });
  logger.info({ port: grpc.port, host: config.GRPC_HOST, chainMode: config.CHAIN_MODE }, 'gRPC server listening');

  let stopping: Promise<void> | null = null;
  const daemon: Daemon = {
    config,
    logger,
    orm,
    grpcPort: grpc.port,
    metricsPort: metricsServer?.port ?? null,
    clock,
    operatorToken: keys.operatorToken,
    stop: () =>
      (stopping ??= (async () => {
        engineLock.stopping();
        idleGc?.stop();
        await healthMonitor?.stop();
        grpc.health.setStatus('', 'NOT_SERVING');
        operatorStreams.abort();
        await grpc.shutdown(config.SHUTDOWN_GRACE_MS);
        await metricsServer?.close();
        metrics.close();
        await webhooks.stop();
        for (const w of watchers.values()) await w.stop();
        await invoiceActors.stop();
        await withdrawalActors.stop();
        await expiredPayouts.stop();
        await treasury.stop();
        for (const a of chains.adapters.values()) await a.close();
        await chains.close();
        await orm.close(true);
        await engineLock.release();
        if (embedded) await embedded.stop();
        logger.info('daemon stopped');
      })()),
  };
  stopDaemon = daemon.stop;
  return daemon;
}
