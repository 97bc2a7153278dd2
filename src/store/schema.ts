import type { Plan } from '../domain/plans.js';
import type { StoredSuppression } from '../domain/suppressions.js';
import type { Role } from '../domain/access.js';
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
export interface ScansTable extends Omit<StoredScan, 'input' | 'results' | 'ci'> {
  /** JSON of the scan input without target credentials. */
  input: string;
  /** JSON of the scan's CI metadata (016); null without. */
  ci?: string | null;
  /** The CI metadata's branch, for lookups by target and branch (016). */
  ci_branch?: string | null;
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
  /** New API specifications scanned this period (012). */
  specifications_used: number;
  specifications_limit: number | null;
  updated_at: string;
}

/** The API specifications a tenant scanned in a period, by stable key (012, domain/spec-identity.ts). */
export interface PeriodSpecificationsTable {
  tenant_id: string;
  period_start: string;
  spec_key: string;
  label: string;
  first_scan_id: string;
  created_at: string;
}

export interface UsageAlertsTable {
  id: string;
  tenant_id: string;
  type: 'approaching_limit' | 'quota_exceeded' | 'quota_reset';
  quota: 'functional' | 'security' | 'specifications' | 'all';
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
  period_specifications: PeriodSpecificationsTable;
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
  idempotency_keys: IdempotencyKeysTable;
  scan_idempotency: ScanIdempotencyTable;
  sso_configs: SsoConfigsTable;
  members: MembersTable;
  dashboard_sessions: DashboardSessionsTable;
  sso_requests: SsoRequestsTable;
  sso_assertions: SsoAssertionsTable;
  audit_log: AuditLogTable;
  suppressions: SuppressionsTable;
  sso_email_domains: SsoEmailDomainsTable;
}

/** A tenant's identity provider and sign-in rules (013). */
export interface SsoConfigsTable {
  tenant_id: string;
  protocol: 'oidc' | 'saml';
  oidc_issuer: string | null;
  oidc_client_id: string | null;
  /** Sealed with the secret box. */
  oidc_client_secret: string | null;
  saml_metadata: string | null;
  group_claim: string | null;
  /** JSON: IdP group -> role. */
  role_mapping: string;
  default_role: Role;
  /** JSON array of the email domains as last configured (the claims and their proof: sso_email_domains, 017). */
  email_domains: string;
  sso_required: number;
  updated_at: string;
}

/** Email domains a tenant claims for sign-in by email, and their DNS proof (017). */
export interface SsoEmailDomainsTable {
  tenant_id: string;
  domain: string;
  /** What the TXT record must carry: `vigil-domain-verification=<token>`. */
  token: string;
  created_at: string;
  /** When the TXT record was found; null while the claim waits for its proof. */
  verified_at: string | null;
}

/** People of a tenant, provisioned at their first SSO sign-in (013). */
export interface MembersTable {
  id: string;
  tenant_id: string;
  /** The IdP's subject (OIDC `sub`, SAML NameID), prefixed with the protocol. */
  subject: string;
  email: string | null;
  name: string | null;
  role: Role;
  created_at: string;
  updated_at: string;
  last_sign_in_at: string | null;
}

/** Dashboard sessions (013): the SHA-256 of the cookie's token. */
export interface DashboardSessionsTable {
  token_hash: string;
  tenant_id: string;
  member_id: string | null;
  /** Key sign-in: the display prefix of the key. */
  key_prefix: string | null;
  method: 'oidc' | 'saml' | 'key';
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

/** Sign-ins under way (013): JSON data, single use. */
export interface SsoRequestsTable {
  id: string;
  tenant_id: string;
  data: string;
  expires_at: string;
}

export interface SsoAssertionsTable {
  tenant_id: string;
  assertion_id: string;
  expires_at: string;
}

/** Triaged findings of a tenant (014): see domain/suppressions.ts. */
export type SuppressionsTable = StoredSuppression;

export interface AuditLogTable {
  id: string;
  tenant_id: string;
  at: string;
  actor_type: 'member' | 'api_key' | 'system';
  /** Member email (or subject), or the API key's display prefix. */
  actor: string;
  action: string;
  target: string | null;
  /** JSON. */
  detail: string | null;
  address: string | null;
}

/** The first answer to a creating POST per tenant and Idempotency-Key (010). */
export interface IdempotencyKeysTable {
  tenant_id: string;
  idem_key: string;
  request_hash: string;
  state: 'pending' | 'done';
  response_status: number | null;
  response_body: string | null;
  locked_at: string;
  created_at: string;
}

/** The scan a tenant's Idempotency-Key admitted, written with the admission (011). */
export interface ScanIdempotencyTable {
  tenant_id: string;
  idem_key: string;
  scan_id: string;
  created_at: string;
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
