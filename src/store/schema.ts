import type { Plan } from '../domain/plans.js';

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

export interface Database {
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
}
