import type { NotificationSettingsRepository } from '../notifications/settings.js';
import type { Logger } from 'pino';
import type { Config } from '../app/config.js';
import type { BillingService } from '../billing/service.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { ArtifactStore } from '../engines/engine.js';
import type { EventBus } from '../events/bus.js';
import type { LiveSocketSlots } from '../events/live-slots.js';
import type { ScanService } from '../scans/service.js';
import type { Store } from '../store/database.js';
import type { ScanRepository } from '../store/scans.js';
import type { TenantRepository } from '../store/tenants.js';
import type { UsageRepository } from '../store/usage.js';
import type { ArtifactLinks } from './artifact-links.js';
import type { TenantRateLimiter } from './rate-limiter.js';

/** What route plugins are given: the composition root builds it once per process. */
export interface Services {
  config: Config;
  store: Store;
  tenants: TenantRepository;
  scans: ScanRepository;
  usage: UsageRepository;
  rateLimiter: TenantRateLimiter;
  bus: EventBus;
  scanService: ScanService;
  liveSlots: LiveSocketSlots;
  secretBox: SecretBox;
  artifacts: ArtifactStore;
  artifactLinks: ArtifactLinks;
  logger: Logger;
  billing: BillingService;
  notificationSettings: NotificationSettingsRepository;
}
