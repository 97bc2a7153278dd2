/**
 * A tarpit target (every answer slow, but within the per-request timeout) cannot hold a worker slot for
 * as long as its spec has requests: VIGIL_SCAN_MAX_SECONDS is the scan's ceiling on time spent on the
 * target. Here every answer takes longer than the whole ceiling, so nothing can be measured before it:
 * asserted by verdicts and the warning, never by durations.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';

const CEILING_SECONDS = 1;
/** Longer than the ceiling: no answer arrives before it. */
const TARPIT_MS = 3000;

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'tarpit', version: '1' },
  paths: {
    '/items': { get: { responses: { '200': { description: 'items' } } } },
    '/items/{id}': {
      get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }], responses: { '200': { description: 'item' } } },
    },
    '/search': { get: { parameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }], responses: { '200': { description: 'found' } } } },
  },
};

describe(`a tarpit target stops at the scan's ceiling (${storeLabel})`, () => {
  let server: TestServer;
  let tarpit: Server;
  let target: string;
  let requests = 0;

  beforeAll(async () => {
    tarpit = createServer((req, res) => {
      requests += 1;
      req.resume();
      const timer = setTimeout(() => {
        res.setHeader('content-type', 'application/json');
        res.end('{"items":[]}');
      }, TARPIT_MS);
      res.on('close', () => clearTimeout(timer));
    });
    await new Promise<void>((r) => tarpit.listen(0, '127.0.0.1', r));
    target = `http://127.0.0.1:${(tarpit.address() as AddressInfo).port}`;
    server = await startServer({ engines: 'real', env: { VIGIL_SCAN_MAX_SECONDS: String(CEILING_SECONDS) } });
  });
  afterAll(async () => {
    await server?.stop();
    tarpit?.closeAllConnections();
    await new Promise((r) => tarpit?.close(r));
  });

  it('ends completed with what it measured (nothing), the rest not tested "the target was too slow", and the warning first', async () => {
    const { tenantId, apiKey } = await server.createTenant('team');
    const start = await call(`${server.api}/scan`, {
      headers: { 'X-API-Key': apiKey },
      json: { url: target, mode: 'security', spec_content: Buffer.from(JSON.stringify(SPEC)).toString('base64'), options: { timeout: 60 } },
    });
    expect(start.status, start.text).toBe(202);
    const done = await waitForScan(server.api, apiKey, start.body.scan_id, undefined, 120_000);
    expect(done.status, done.failure_reason).toBe('completed');

    const scan = (await server.vigil.services.scans.get(tenantId, start.body.scan_id))!;
    const security = scan.results!.security!;
    expect(security.warnings[0]).toMatch(
      new RegExp(`^The target was too slow: the scan reached its ceiling of ${CEILING_SECONDS} s spent on the target \\(VIGIL_SCAN_MAX_SECONDS\\) at `),
    );
    // Nothing passed or failed: every answer would have come after the ceiling.
    expect(scan.results!.tasks.filter((t) => t.status === 'passed' || t.status === 'failed')).toEqual([]);
    const checks = security.coverage.checks;
    expect(checks.length).toBeGreaterThan(5);
    expect(checks.filter((c) => c.ran)).toEqual([]);
    const stopped = checks.filter((c) =>
      c.not_run.some((n) => n.reason_code === 'time_ceiling' && n.reason.startsWith('the target was too slow: the scan reached its ceiling of 1 s')),
    );
    expect(stopped.length).toBeGreaterThan(0);
    // Past the ceiling no request is sent: the tarpit saw the reachability probe and what was in flight with it.
    expect(requests).toBeLessThanOrEqual(3);
  });
});
