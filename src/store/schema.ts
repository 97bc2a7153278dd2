import type { Plan } from '../domain/plans.js';
import type { StoredScan } from '../domain/stored-scan.js';

/** Table shapes. Timestamps are ISO 8601 UTC strings in both dialects, so they sort as text. */
export interface TenantsTable {
  id: string;
  email: string | null;
  plan: Plan;
  status: string;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  tenant_id: string;
  key_hash: string;
  key_prefix: string;
  created_at: string;
  revoked_at: string | null;
}

/** A scan row as stored: the domain's StoredScan with its input and results as JSON text (decoded by store/scans.ts). */
export interface ScansTable extends Omit<StoredScan, 'input' | 'results'> {
  /** JSON of the scan input without target credentials. */
  input: string;
  /** JSON of the engine outcome (tasks, functional outcome). */
  results: string | null;
}

export interface UsagePeriodsTable {
  tenant_id: string;
  period_start: string;
  period_end: string;
  plan: Plan;
  functional_used: number;
  security_used: number;
  functional_limit: number | null;
  security_limit: number | null;
  updated_at: string;
}

export interface UsageAlertsTable {
  id: string;
  tenant_id: string;
  type: 'approaching_limit' | 'quota_exceeded' | 'quota_reset';
  quota: 'functional' | 'security' | 'all';
  period_start: string;
  message: string;
  scans_used: number;
  scans_limit: number | null;
  triggered_at: string;
}

/** Visual baselines by tenant + page key + viewport + device + branch (migration 007). */
export interface PageBaselinesTable {
  id: string;
  tenant_id: string;
  page_key: string;
  viewport: string;
  device: 'desktop' | 'mobile';
  branch: string;
  artifact_id: string;
  page_url: string | null;
  scan_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface ArtifactsTable {
  id: string;
  tenant_id: string;
  content_type: string;
  /** base64 */
  data: string;
  created_at: string;
}

/** Bigint columns: a number from SQLite, a string from PostgreSQL; read them with Number(). */
type BigIntColumn = number | string;

export interface BillingAccountsTable {
  tenant_id: string;
  customer_id: string | null;
  subscription_id: string | null;
  payment_failed_at: string | null;
  payment_failed_created: BigIntColumn | null;
  /** JSON of the last payment failure (invoice id, amount, next attempt). */
  payment_failure: string | null;
  last_paid_created: BigIntColumn | null;
  updated_at: string;
}

export interface BillingSubscriptionsTable {
  id: string;
  customer_id: string | null;
  status: string;
  price_id: string | null;
  plan: Plan | null;
  current_period_start: string | null;
  current_period_end: string | null;
  cancel_at_period_end: number;
  /** `created` of the full refund that revoked this subscription's plan, until a later payment. */
  revoked_created: BigIntColumn | null;
  last_event_created: BigIntColumn;
  last_event_id: string;
  updated_at: string;
}

export interface BillingEventsTable {
  id: string;
  type: string;
  created: BigIntColumn;
  tenant_id: string | null;
  outcome: string;
  received_at: string;
}

export interface BillingCheckoutKeysTable {
  session_id: string;
  tenant_id: string;
  sealed_key: string | null;
  created_at: string;
  claimed_at: string | null;
}

/** Checkouts started by a new customer in the dashboard (009): the hash of each one's claim token. */
export interface BillingCheckoutClaimsTable {
  session_id: string;
  /** SHA-256 of the claim token, hex; the token itself is only ever in the browser that started the checkout. */
  token_hash: string;
  plan: string;
  created_at: string;
}

export interface Database {
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
  scans: ScansTable;
  usage_periods: UsagePeriodsTable;
  usage_alerts: UsageAlertsTable;
  page_baselines: PageBaselinesTable;
  artifacts: ArtifactsTable;
  billing_accounts: BillingAccountsTable;
  billing_subscriptions: BillingSubscriptionsTable;
  billing_events: BillingEventsTable;
  billing_checkout_keys: BillingCheckoutKeysTable;
  billing_checkout_claims: BillingCheckoutClaimsTable;
  notification_settings: NotificationSettingsTable;
  cluster_leases: ClusterLeasesTable;
}

/** Jobs run once per cluster (006): which process holds each, until when. */
export interface ClusterLeasesTable {
  name: string;
  holder: string;
  expires_at: string;
}

/** Outbound notification settings of a tenant (004): the channel list, sealed. */
export interface NotificationSettingsTable {
  tenant_id: string;
  sealed: string;
  updated_at: string;
}
