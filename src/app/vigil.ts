import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { BillingService } from '../billing/service.js';
import { SecretBox } from '../domain/secret-box.js';
import type { ArtifactStore } from '../engines/engine.js';
import { MemoryEventBus, RedisEventBus, type EventBus } from '../events/bus.js';
import { LiveSocketSlots } from '../events/live-slots.js';
import { UsageUpdates } from '../events/usage-updates.js';
import { ArtifactLinks } from '../http/artifact-links.js';
import { ClientRateLimiter, TenantRateLimiter } from '../http/rate-limiter.js';
import { buildMetricsServer } from '../http/metrics-server.js';
import { buildServer } from '../http/server.js';
import { enableMetrics } from '../observability/metrics.js';
import type { Services } from '../http/services.js';
import { ScanExecution, type EngineRegistry } from '../queue/execution.js';
import { Maintenance } from '../queue/maintenance.js';
import { ScanWorker } from '../queue/worker.js';
import { ScanFinishedPublisher } from '../scans/finished.js';
import { ScanService } from '../scans/service.js';
import { DatabaseArtifactStore, FileArtifactStore } from '../store/artifacts.js';
import { DatabaseBaselineStore } from '../store/baselines.js';
import { ClusterLeases } from '../store/cluster-leases.js';
import { IdempotencyKeys } from '../store/idempotency-keys.js';
import { openStore, type Store } from '../store/database.js';
import { ScanStates } from '../store/scan-states.js';
import { ScanRepository } from '../store/scans.js';
import { TenantRepository } from '../store/tenants.js';
import { UsageRepository } from '../store/usage.js';
import { SIGNUP_RATE_WINDOW_SECONDS, publicBaseUrl, publicUrlNotice, type Config } from './config.js';
import { httpSettings } from './http-settings.js';
import { browserReadiness, defaultEngines } from './engines.js';
import { createLogger, logRedaction } from './logger.js';
import { loadMasterKey } from './master-key.js';
import { VERSION } from './version.js';
import { NotificationSettingsRepository } from '../notifications/settings.js';
import { createNotifier, createPaymentNotifier } from '../notifications/worker.js';
import { AuditLogRepository } from '../store/audit-log.js';
import { SuppressionRepository } from '../store/suppressions.js';
import { MemberRepository } from '../store/members.js';
import { SsoConfigRepository } from '../store/sso-configs.js';
import { SsoEmailDomainRepository } from '../store/sso-email-domains.js';
import { txtLookup } from '../sso/domain-proof.js';
import { EmailDomainService } from '../sso/email-domains.js';
import { OidcClient } from '../sso/oidc.js';
import { SsoService } from '../sso/service.js';

export interface Vigil {
  services: Services;
  /** Present when the role serves HTTP (all, api). */
  http?: FastifyInstance;
  /** Present when the role runs scans (all, worker). */
  worker?: ScanWorker;
  /** Present when the role runs scans: it competes with every other such process for the once-per-cluster job. */
  maintenance?: Maintenance;
  /** Announces scans reaching a final state (usage update, notifications). */
  scanFinished: ScanFinishedPublisher;
  /** Base URL clients use, once listening. */
  url?: string;
  /** GET /metrics on its own listener (VIGIL_METRICS_PORT), once listening. */
  metricsUrl?: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface VigilOptions {
  logger?: Logger;
  /** Where the bootstrap key is printed (stdout by default). */
  announce?: (line: string) => void;
  /** Engines the worker runs; the built-in ones by default. Tests register their own. */
  engines?: EngineRegistry;
  /** Time source for periods, alerts and links (tests inject one). */
  clock?: () => Date;
}

/** The composition root: builds every part for the configured role, starts and stops them in order. */
export async function createVigil(config: Config, options: VigilOptions = {}): Promise<Vigil> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const announce = options.announce ?? ((line: string) => process.stdout.write(`${line}\n`));
  const clock = options.clock ?? (() => new Date());
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, lazyConnect: false }) : undefined;
  redis?.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  const bus: EventBus = redis ? new RedisEventBus(redis, logger) : new MemoryEventBus();
  if (bus instanceof RedisEventBus) await bus.whenReady();

  const secretBox = new SecretBox(loadMasterKey(config.encryptionKey, config.dataDir));
  const tenants = new TenantRepository(store.db);
  const usage = new UsageRepository(store.db, clock);
  const scans = new ScanRepository(store.db);
  const states = new ScanStates(store.db, store.dialect, usage);
  const artifacts = artifactStore(store, config);
  const baselines = new DatabaseBaselineStore(store.db, clock);
  const notificationSettings = new NotificationSettingsRepository(store.db, secretBox, clock);
  const members = new MemberRepository(store.db, config.sessions, clock);
  const audit = new AuditLogRepository(store.db, clock);
  const ssoConfigs = new SsoConfigRepository(store.db, clock);
  const suppressions = new SuppressionRepository(store.db, clock);
  const emailDomains = new EmailDomainService({ domains: new SsoEmailDomainRepository(store.db), audit, lookup: txtLookup(config.dnsServers), clock });
  const scanFinished = new ScanFinishedPublisher({
    usageUpdates: new UsageUpdates(bus, usage, tenants),
    states,
    notify: createNotifier({
      settings: notificationSettings,
      tenants,
      scans,
      suppressions,
      appUrl: config.appUrl,
      apiUrl: () => vigil.url ?? publicBaseUrl(config, config.port),
      hosted: config.deployment === 'hosted',
      logger,
      clock,
    }),
    logger,
  });
  const idempotencyKeys = new IdempotencyKeys(store.db, clock);
  const services: Services = {
    config: httpSettings(config),
    store,
    tenants,
    scans,
    usage,
    rateLimiter: new TenantRateLimiter(config.rateLimits, config.rateLimitWindowSeconds, redis),
    clientRateLimiter: new ClientRateLimiter(config.signupRateLimit, SIGNUP_RATE_WINDOW_SECONDS, redis),
    bus,
    scanService: new ScanService({ states, scans, secretBox, bus, finished: scanFinished, concurrentScans: config.concurrentScans, logger }),
    // A slot outlives its last refresh by three ping rounds: what a crashed api process leaks, at most.
    liveSlots: new LiveSocketSlots({
      perPlan: config.liveSockets,
      perProcess: config.liveSocketsPerProcess,
      ttlSeconds: 3 * config.wsPingSeconds,
      redis,
      logger,
    }),
    secretBox,
    artifacts,
    baselines,
    artifactLinks: new ArtifactLinks(secretBox, config.artifactLinkSeconds, clock),
    logger,
    billing: new BillingService({
      settings: { ...config.payment, appUrl: config.appUrl },
      db: store.db,
      tenants,
      usage,
      audit,
      bus,
      secretBox,
      logger,
      clock: options.clock,
      notifyPaymentFailed: createPaymentNotifier({
        settings: notificationSettings,
        tenants,
        scans,
        appUrl: config.appUrl,
        hosted: config.deployment === 'hosted',
        logger,
        clock,
      }),
    }),
    notificationSettings,
    members,
    audit,
    suppressions,
    sso: new SsoService({
      configs: ssoConfigs,
      members,
      audit,
      secretBox,
      oidc: new OidcClient(config.ssoAllowHttp, config.deployment !== 'hosted'),
      emailDomains,
      clock,
    }),
    emailDomains,
    idempotencyKeys,
    readiness: { dataDir: config.dataDir, redis: redis ? () => redis.ping() : undefined },
    clock,
  };

  const servesHttp = config.role === 'all' || config.role === 'api';
  const metricsServed = config.metrics.token !== undefined || config.metrics.port !== undefined;
  let metricsServer: FastifyInstance | undefined;
  let stopQueueDepth: (() => void) | undefined;
  const runsScans = config.role === 'all' || config.role === 'worker';
  const http = servesHttp ? await buildServer(services, VERSION) : undefined;
  const engines = runsScans ? (options.engines ?? (await defaultEngines(config, logger))) : {};
  if (runsScans) services.readiness.browser = await browserReadiness(config, engines);
  const worker = runsScans
    ? new ScanWorker({
        states,
        execution: new ScanExecution({
          states,
          engines,
          finished: scanFinished,
          secretBox,
          artifacts,
          baselines,
          deployment: config.deployment,
          logger,
          logRedaction: logRedaction(logger),
        }),
        bus,
        logger,
        concurrency: config.workerConcurrency,
        leaseSeconds: config.scanLeaseSeconds,
        store: { dataDir: config.dataDir, databaseUrl: config.databaseUrl },
        clock: options.clock,
        planOf: metricsServed ? async (tenantId) => (await tenants.get(tenantId))?.plan : undefined,
      })
    : undefined;
  // Every process that runs scans competes for the maintenance lease; one at a time holds it (embedded: the only one).
  const maintenance = worker
    ? new Maintenance({
        holder: worker.workerId,
        leases: new ClusterLeases(store.db, clock),
        states,
        usage,
        idempotency: idempotencyKeys,
        bus,
        finished: scanFinished,
        logger,
        leaseSeconds: config.scanLeaseSeconds,
        stallSeconds: config.scanStallSeconds,
      })
    : undefined;

  const vigil: Vigil = {
    services,
    http,
    worker,
    maintenance,
    scanFinished,
    async start() {
      const linkNotice = publicUrlNotice(config);
      logger[linkNotice.level](linkNotice.message);
      if (servesHttp && config.deployment === 'self-hosted') await bootstrapDefaultTenant(tenants, logger, announce);
      if (metricsServed) stopQueueDepth = enableMetrics({ version: VERSION, role: config.role, store: store.dialect }, () => states.queuedByPlan());
      if (config.metrics.port !== undefined) {
        metricsServer = await buildMetricsServer({ token: config.metrics.token, logger, appUrl: config.appUrl, services });
        await metricsServer.listen({ port: config.metrics.port, host: config.host });
        vigil.metricsUrl = `${publicBaseUrl({ host: config.host } as Config, (metricsServer.server.address() as AddressInfo).port)}/metrics`;
        announce(`Metrics (Prometheus) at ${vigil.metricsUrl}${config.metrics.token ? ', with the bearer token' : ''}`);
      }
      await worker?.start();
      maintenance?.start();
      if (http) {
        await http.listen({ port: config.port, host: config.host });
        const port = (http.server.address() as AddressInfo).port;
        vigil.url = publicBaseUrl(config, port);
        announce(
          `Vigil ${VERSION} (${config.role}, ${store.dialect}${redis ? ' + redis' : ''}) listening on ${vigil.url}/api/v1 — docs at ${vigil.url}/api/v1/docs — dashboard at ${vigil.url}/app`,
        );
        if (services.config.metrics.token) announce(`Metrics (Prometheus) at ${vigil.url}/metrics, with the bearer token`);
      } else {
        announce(`Vigil ${VERSION} worker started (${store.dialect}${redis ? ' + redis' : ''})`);
      }
    },
    async stop() {
      // Stop accepting requests and let in-flight ones finish; give running scans their grace period
      // (what is left goes back to the queue); then close shared resources.
      if (http) await http.close();
      await maintenance?.stop();
      if (worker) await worker.stop(config.shutdownGraceSeconds * 1000);
      await scanFinished.settled(config.shutdownGraceSeconds * 1000);
      for (const engine of Object.values(engines)) await (engine as { close?: () => Promise<void> }).close?.().catch(() => {});
      await bus.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
      await metricsServer?.close();
      stopQueueDepth?.();
      await store.close();
    },
  };
  return vigil;
}

function artifactStore(store: Store, config: Config): ArtifactStore {
  return store.dialect === 'postgres' ? new DatabaseArtifactStore(store.db) : new FileArtifactStore(join(config.dataDir, 'artifacts'));
}

/** First start of a self-hosted instance with no tenants: a `default` enterprise tenant, key printed once. */
async function bootstrapDefaultTenant(tenants: TenantRepository, logger: Logger, announce: (line: string) => void): Promise<void> {
  if ((await tenants.count()) > 0) return;
  try {
    const { apiKey } = await tenants.create({ id: 'default', plan: 'enterprise' });
    announce(`Created tenant "default" (enterprise). Its API key, shown only this once:\n\n    ${apiKey}\n`);
  } catch (error) {
    // Another instance bootstrapped at the same moment.
    logger.debug({ err: error }, 'default tenant already created');
  }
}
