import type { Migration, MigrationProvider } from 'kysely';
import * as tenantsAndKeys from './001-tenants-and-keys.js';
import * as scansUsageArtifacts from './002-scans-usage-artifacts.js';
import * as billing from './003-billing.js';
import * as notifications from './004-notifications.js';
import * as scanAnnouncements from './005-scan-announcements.js';
import * as clusterLeases from './006-cluster-leases.js';
import * as pageBaselines from './007-page-baselines.js';
import * as scanProgressDetail from './008-scan-progress-detail.js';
import * as checkoutClaims from './009-checkout-claims.js';
import * as idempotencyKeys from './010-idempotency-keys.js';
import * as scanIdempotency from './011-scan-idempotency.js';
import * as apiSpecifications from './012-api-specifications.js';
import * as membersSessionsAudit from './013-members-sessions-audit.js';
import * as suppressions from './014-suppressions.js';
import * as scanQueuedAt from './015-scan-queued-at.js';
import * as scanCiMetadata from './016-scan-ci-metadata.js';
import * as ssoEmailDomains from './017-sso-email-domains.js';

/** Every migration, in order. One schema for both dialects: only portable Kysely schema builders. */
const MIGRATIONS: Record<string, Migration> = {
  '001-tenants-and-keys': tenantsAndKeys,
  '002-scans-usage-artifacts': scansUsageArtifacts,
  '003-billing': billing,
  '004-notifications': notifications,
  '005-scan-announcements': scanAnnouncements,
  '006-cluster-leases': clusterLeases,
  '007-page-baselines': pageBaselines,
  '008-scan-progress-detail': scanProgressDetail,
  '009-checkout-claims': checkoutClaims,
  '010-idempotency-keys': idempotencyKeys,
  '011-scan-idempotency': scanIdempotency,
  '012-api-specifications': apiSpecifications,
  '013-members-sessions-audit': membersSessionsAudit,
  '014-suppressions': suppressions,
  '015-scan-queued-at': scanQueuedAt,
  '016-scan-ci-metadata': scanCiMetadata,
  '017-sso-email-domains': ssoEmailDomains,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};
