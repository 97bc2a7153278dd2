/**
 * A scan put back in the queue (as the reaper does with a lapsed lease) and claimed again by the same
 * worker, before that worker's earlier run of it noticed: the earlier run is stopped first, so the scan
 * never runs twice at once on one worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineOutcome } from '../../src/domain/scan.js';
import type { ScanEngine } from '../../src/engines/engine.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { testEngine } from '../helpers/test-engine.js';
import { until } from '../helpers/until.js';

describe(`a scan re-queued and claimed again by the same worker (${storeLabel})`, () => {
  let server: TestServer;
  let running = 0;
  let mostAtOnce = 0;
  const runs: Array<{ aborted: boolean }> = [];

  /** Runs until cancelled by its signal (the first run), or finishes at once (any later run). */
  const engine: ScanEngine = {
    kind: 'security',
    async run(ctx): Promise<EngineOutcome> {
      const run = { aborted: false };
      runs.push(run);
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      try {
        if (runs.length === 1) {
          await new Promise<void>((resolve) => {
            if (ctx.signal.aborted) return resolve();
            ctx.signal.addEventListener('abort', () => resolve(), { once: true });
          });
          run.aborted = true;
          throw ctx.signal.reason ?? new Error('aborted');
        }
        return { tasks: [{ task_id: 't1', kind: 'security', name: 'second run', status: 'passed', duration_ms: 1 }], agent_count: 1 } as never;
      } finally {
        running -= 1;
      }
    },
  };

  beforeAll(async () => {
    server = await startServer({ engines: { security: engine, functional: testEngine('functional') } });
  });
  afterAll(async () => server?.stop());

  it('stops the earlier run before the new one starts', async () => {
    const { apiKey } = await server.createTenant('pro');
    const start = await call(`${server.api}/scan`, { headers: { 'X-API-Key': apiKey }, json: { url: 'http://target.test/' } });
    expect(start.status, start.text).toBe(202);
    await until(() => runs.length === 1, 'the first run');
    // What the reaper does with a lease it finds lapsed; the worker's next poll claims the scan again.
    await server.vigil.services.store.db
      .updateTable('scans')
      .set({ status: 'queued', lease_owner: null, lease_expires_at: null })
      .where('id', '=', start.body.scan_id)
      .execute();
    const done = await waitForScan(server.api, apiKey, start.body.scan_id);
    expect(done.status).toBe('completed');
    expect(runs.map((r) => r.aborted)).toEqual([true, false]);
    expect(mostAtOnce).toBe(1);
  });
});
