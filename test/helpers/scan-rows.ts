import { newId } from '../../src/domain/ids.js';
import type { ScansTable } from '../../src/store/schema.js';
import type { TestServer } from './server.js';

/**
 * Inserts a functional scan row exactly as a worker's completing statement leaves it when the worker
 * dies before announcing it (status completed, `announced_at` null), ended 10 s ago; returns the row.
 */
export async function insertUnannouncedCompletedScan(server: TestServer, tenantId: string, plan: 'pro' | 'team'): Promise<ScansTable> {
  const period = await server.vigil.services.usage.currentPeriod(tenantId, plan);
  const ended = new Date(Date.now() - 10_000).toISOString();
  const row: ScansTable = {
    id: newId('scn'),
    tenant_id: tenantId,
    mode: 'functional',
    status: 'completed',
    url: 'http://target.test/app',
    spec_url: null,
    input: JSON.stringify({ url: 'http://target.test/app', mode: 'functional', options: {} }),
    secret: null,
    progress: 100,
    attempts: 1,
    lease_owner: null,
    lease_expires_at: null,
    last_progress_at: ended,
    failure_reason: null,
    passed: 3,
    failed: 0,
    total: 3,
    elapsed_seconds: 1,
    agent_count: 1,
    results: JSON.stringify({ tasks: [], agent_count: 1, elapsed_seconds: 1 }),
    period_start: period.period_start,
    created_at: ended,
    updated_at: ended,
    started_at: ended,
    completed_at: ended,
    announced_at: null,
  };
  await server.vigil.services.store.db.insertInto('scans').values(row).execute();
  return row;
}
