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
}
