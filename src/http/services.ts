import type { IdempotencyKeys } from '../store/idempotency-keys.js';
import type { NotificationSettingsRepository } from '../notifications/settings.js';
import type { Logger } from 'pino';
import type { BillingService } from '../billing/service.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { ArtifactStore } from '../engines/engine.js';
import type { EventBus } from '../events/bus.js';
import type { LiveSocketSlots } from '../events/live-slots.js';
import type { ScanService } from '../scans/service.js';
import type { Store } from '../store/database.js';
import type { DatabaseBaselineStore } from '../store/baselines.js';
import type { ScanRepository } from '../store/scans.js';
import type { TenantRepository } from '../store/tenants.js';
import type { UsageRepository } from '../store/usage.js';
import type { AuditLogRepository } from '../store/audit-log.js';
import type { SuppressionRepository } from '../store/suppressions.js';
import type { MemberRepository } from '../store/members.js';
import type { EmailDomainService } from '../sso/email-domains.js';
import type { SsoService } from '../sso/service.js';
import type { ArtifactLinks } from './artifact-links.js';
import type { ClientRateLimiter, TenantRateLimiter } from './rate-limiter.js';

/** The settings the HTTP layer reads; the composition root picks them from its configuration. */
export interface HttpSettings {
  deployment: 'self-hosted' | 'hosted';
  /** Public base address of this service (used in links); the request's own address when unset. */
  publicUrl?: string;
  /** Address of the web dashboard (upgrade links, the sign-up checkout's return addresses). */
  appUrl: string;
  /** appUrl is only the listening address (self-hosted, not configured): the sign-up uses the request's origin + /app. */
  appUrlGuessed?: boolean;
  /** Shared secret of the operator routes (sync-tenant, billing sync); unset: those routes are closed. */
  syncKey?: string;
  bodyLimitBytes: number;
  specMaxBytes: number;
  specMaxOperations: number;
  /** Live socket: seconds between pings, and the scan lease (how long a finish may be announced twice). */
  wsPingSeconds: number;
  scanLeaseSeconds: number;
  llm: { url?: string; model: string; apiKey?: string; timeoutSeconds: number };
  /** Dashboard sessions: idle and absolute expiry. */
  sessions: { idleSeconds: number; absoluteSeconds: number };
  /** Request bodies still being received at once, per client address and per tenant (open-bodies.ts). */
  openBodies: { perAddress: number; perTenant: number };
  /**
   * Metrics (docs/operators.md): `countRequests` when they are served anywhere (this server or the
   * VIGIL_METRICS_PORT listener); `token` when this server serves GET /metrics, behind that bearer token.
   */
  metrics: { countRequests: boolean; token?: string };
}

/** What route plugins are given: the composition root builds it once per process. */
export interface Services {
  config: HttpSettings;
  store: Store;
  tenants: TenantRepository;
  scans: ScanRepository;
  usage: UsageRepository;
  rateLimiter: TenantRateLimiter;
  /** Per client address, for the public sign-up routes. */
  clientRateLimiter: ClientRateLimiter;
  bus: EventBus;
  scanService: ScanService;
  liveSlots: LiveSocketSlots;
  secretBox: SecretBox;
  artifacts: ArtifactStore;
  baselines: DatabaseBaselineStore;
  artifactLinks: ArtifactLinks;
  logger: Logger;
  billing: BillingService;
  notificationSettings: NotificationSettingsRepository;
  /** Members of tenants and dashboard sessions. */
  members: MemberRepository;
  audit: AuditLogRepository;
  /** Server-side suppressions (triage), applied to every report of the tenant's scans. */
  suppressions: SuppressionRepository;
  sso: SsoService;
  /** Email domains claimed for sign-in by email, and their DNS proof. */
  emailDomains: EmailDomainService;
  /** Idempotency-Key answers of creating POSTs (plugins/idempotency.ts). */
  idempotencyKeys: IdempotencyKeys;
  /** What GET /health/ready checks besides the store (routes/health-ready.ts). */
  readiness: ReadinessProbes;
  /** The time source (tests inject one): when a suppression has expired. */
  clock: () => Date;
}

export interface ReadinessProbes {
  /** Redis answers PING (only when Redis is configured). */
  redis?: () => Promise<unknown>;
  /** The directory whose free space is checked (the data directory). */
  dataDir: string;
  /** In a process that runs scans: `ok`, or why its browser cannot serve pages (an api-only process has none). */
  browser?: () => string;
}
