/** A finished scan row as the read benches seed their stores with (bench/api.bench.ts, bench/lib/read-path-probe.ts). */
import { newId } from '../../src/domain/ids.js';

export type SeededStatus = 'completed' | 'failed' | 'cancelled';

/** The n-th seeded scan of `tenantId`, created n seconds after `baseMs`. */
export function seededScan(n: number, tenantId: string, baseMs: number, status: SeededStatus = 'completed') {
  const at = new Date(baseMs + n * 1000).toISOString();
  return {
    id: newId('scn'),
    tenant_id: tenantId,
    mode: 'security' as const,
    status,
    url: `https://target-${n % 97}.example`,
    spec_url: null,
    input: '{"options":{}}',
    secret: null,
    progress: 100,
    attempts: 1,
    lease_owner: null,
    lease_expires_at: null,
    last_progress_at: at,
    failure_reason: null,
    passed: 40,
    failed: 3,
    total: 43,
    elapsed_seconds: 12.5,
    agent_count: 5,
    results: null,
    period_start: '2026-01-01T00:00:00.000Z',
    created_at: at,
    updated_at: at,
    started_at: at,
    completed_at: at,
  };
}
