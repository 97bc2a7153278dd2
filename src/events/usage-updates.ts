import type { ScanStatus } from '../domain/scan.js';
import type { FinishedScan } from '../domain/stored-scan.js';
import type { TenantRepository } from '../store/tenants.js';
import type { UsageRepository } from '../store/usage.js';
import type { EventBus } from './bus.js';

/** The contract's `usage_update` message, plus which scan triggered it. */
export interface UsageUpdate {
  type: 'usage_update';
  tenant_id: string;
  scan_count: number;
  monthly_scan_quota: number | null;
  security_scan_count: number;
  monthly_security_scan_quota: number | null;
  approaching_limit: boolean;
  quota_reset_date: string;
  timestamp: string;
  scan_id: string;
  scan_status: ScanStatus;
}

/** The tenant's usage after a scan reached a final state: one usage_update to every socket of the tenant, on any instance. */
export class UsageUpdates {
  constructor(
    private readonly bus: EventBus,
    private readonly usage: UsageRepository,
    private readonly tenants: TenantRepository,
  ) {}

  async publish(scan: FinishedScan): Promise<void> {
    const tenant = await this.tenants.get(scan.tenant_id);
    if (!tenant) return;
    const view = await this.usage.view(scan.tenant_id, tenant.plan);
    const payload: UsageUpdate = {
      type: 'usage_update',
      tenant_id: scan.tenant_id,
      scan_count: view.scans_used,
      monthly_scan_quota: view.scans_limit,
      security_scan_count: view.security_scan_count,
      monthly_security_scan_quota: view.monthly_security_scan_quota,
      approaching_limit: view.approaching_limit,
      quota_reset_date: view.quota_reset_date,
      timestamp: this.usage.now().toISOString(),
      scan_id: scan.id,
      scan_status: scan.status,
    };
    await this.bus.publish('usage', { tenant_id: scan.tenant_id, payload: { ...payload } });
  }
}
