import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScanStates } from '../../src/store/scan-states.js';
import { UsageRepository } from '../../src/store/usage.js';
import { startSite } from '../fixtures/site/server.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';

/**
 * GET /metrics (DESIGN.md round 3, docs/operators.md): absent unless configured, behind its bearer token on
 * the API server or on a listener of its own, and what it counts after real requests and scans.
 */

const TOKEN = 'metrics-token-for-tests-0123456789abcdef';
const bearer = (token = TOKEN) => ({ Authorization: `Bearer ${token}` });

/** One label `name="value"` of the text format (value escapes: \\, \" and \n). */
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
// NaN in any case, as Prometheus reads it (Go's ParseFloat ignores case): prom-client prints an empty event-loop-lag
// histogram's mean as `Nan` when it is scraped before its first sample.
const SAMPLE = new RegExp(
  `^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{((?:${LABEL})(?:,${LABEL})*)?\\})? ([Nn][Aa][Nn]|[+-]Inf|[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?)(?: -?\\d+)?$`,
);
const COMMENT = /^# (?:HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*|TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped))$/;

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a text exposition; every line that is not one (or a HELP/TYPE comment, or empty) is reported. */
function parseExposition(text: string): { samples: Sample[]; badLines: string[]; untyped: string[] } {
  const samples: Sample[] = [];
  const badLines: string[] = [];
  const typed = new Map<string, string>();
  const untyped = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const comment = COMMENT.exec(line);
      if (!comment) badLines.push(line);
      else if (comment[1]) typed.set(comment[1], comment[2]!);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) {
      badLines.push(line);
      continue;
    }
    const [, name, labelText, value] = match;
    const labels = Object.fromEntries([...(labelText ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    const family = typed.has(name!) ? name! : name!.replace(/_(bucket|sum|count)$/, '');
    if (!typed.has(family)) untyped.add(name!);
    samples.push({ name: name!, labels, value: Number(value!.replace(/Inf$/, 'Infinity')) });
  }
  return { samples, badLines, untyped: [...untyped] };
}

/** The value of the one sample named `name` whose labels include `labels` (undefined when there is none). */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

async function scrape(url: string, headers: Record<string, string> = bearer()): Promise<Sample[]> {
  const res = await call(url, { headers });
  expect(res.status, res.text).toBe(200);
  return parseExposition(res.text).samples;
}

/** Scrapes until `ready` holds (a scan's last observations land just after its final state is visible), at most 20 s. */
async function scrapeUntil(url: string, ready: (samples: Sample[]) => boolean, headers?: Record<string, string>): Promise<Sample[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const samples = await scrape(url, headers);
    if (ready(samples) || Date.now() > deadline) return samples;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const originOf = (server: TestServer) => server.vigil.url!;

describe(`GET /metrics (${storeLabel})`, () => {
  it('is not served without VIGIL_METRICS_TOKEN or VIGIL_METRICS_PORT: 404 like any unknown route, and not documented', async () => {
    const server = await startServer();
    try {
      const metrics = await call(`${originOf(server)}/metrics`, { headers: bearer() });
      expect(metrics.status).toBe(404);
      expect(metrics.body).toEqual({ error: 'NOT_FOUND', message: 'No route for GET /metrics', status: 404 });
      expect(server.vigil.metricsUrl).toBeUndefined();
      const doc = (await call(`${server.api}/openapi.json`)).body;
      expect(doc.paths['/metrics']).toBeUndefined();
    } finally {
      await server.stop();
    }
  });

  describe('behind VIGIL_METRICS_TOKEN on the API server', () => {
    let server: TestServer;
    let url: string;
    beforeAll(async () => {
      server = await startServer({ env: { VIGIL_METRICS_TOKEN: TOKEN, VIGIL_RATE_LIMITS: 'free=2' } });
      url = `${originOf(server)}/metrics`;
    });
    afterAll(async () => server?.stop());

    it('answers 401 in the error shape without the right bearer token, compared whole', async () => {
      const { apiKey } = await server.createTenant('enterprise');
      const refused: Array<Record<string, string>> = [
        {},
        { Authorization: TOKEN },
        { Authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
        bearer('wrong'),
        bearer(`${TOKEN}x`),
        bearer(TOKEN.slice(0, -1)),
        { Authorization: `Bearer ${TOKEN} extra` },
        { 'X-API-Key': apiKey },
        bearer(apiKey),
      ];
      for (const headers of refused) {
        const res = await call(url, { headers });
        expect(res.status, JSON.stringify(headers)).toBe(401);
        expect(res.body).toEqual({ error: 'INVALID_API_KEY', message: expect.stringContaining('metrics token'), status: 401 });
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="vigil-metrics"');
      }
      const ok = await call(url, { headers: bearer() });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect((await call(url, { headers: { Authorization: `bearer ${TOKEN}` } })).status).toBe(200);
    });

    it('is declared in the OpenAPI document, outside /api/v1, with its own bearer scheme', async () => {
      const doc = (await call(`${server.api}/openapi.json`)).body;
      const op = doc.paths['/metrics'].get;
      expect(op.operationId).toBe('getMetrics');
      expect(op.security).toEqual([{ MetricsToken: [] }]);
      expect(doc.components.securitySchemes.MetricsToken).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(Object.keys(op.responses['200'].content)).toEqual(['text/plain; version=0.0.4']);
      expect(op.responses['401']).toBeDefined();
    });

    it('is the Prometheus text format: every line a sample, a HELP or a TYPE, every sample of a typed family', async () => {
      await call(`${server.api}/health`);
      const res = await call(url, { headers: bearer() });
      const { samples, badLines, untyped } = parseExposition(res.text);
      expect(badLines).toEqual([]);
      expect(untyped).toEqual([]);
      expect(samples.length).toBeGreaterThan(50);
      // prom-client's default process metrics, and this process's identity.
      for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
        expect(valueOf(samples, name), name).toBeGreaterThanOrEqual(0);
      }
      expect(valueOf(samples, 'vigil_process_info', { role: 'all', store: server.vigil.services.store.dialect })).toBe(1);
    });

    it('counts requests by route pattern and status, never by raw URL; unknown routes as "unmatched"', async () => {
      const { apiKey } = await server.createTenant('team');
      const missing = 'scan_does_not_exist_0123';
      const before = await scrape(url);
      const count = (samples: Sample[], method: string, route: string, status: string) =>
        valueOf(samples, 'vigil_http_requests_total', { method, route, status }) ?? 0;
      expect((await call(`${server.api}/scan/${missing}`, { headers: { 'X-API-Key': apiKey } })).status).toBe(404);
      expect((await call(`${server.api}/scan/${missing}`, { headers: { 'X-API-Key': apiKey } })).status).toBe(404);
      expect((await call(`${server.api}/usage`, { headers: { 'X-API-Key': apiKey } })).status).toBe(200);
      expect((await call(`${server.api}/usage`)).status).toBe(401);
      expect((await call(`${originOf(server)}/no/such/route`)).status).toBe(404);
      const res = await call(url, { headers: bearer() });
      const after = parseExposition(res.text).samples;
      expect(count(after, 'GET', '/api/v1/scan/:id', '404') - count(before, 'GET', '/api/v1/scan/:id', '404')).toBe(2);
      expect(count(after, 'GET', '/api/v1/usage', '200') - count(before, 'GET', '/api/v1/usage', '200')).toBe(1);
      expect(count(after, 'GET', '/api/v1/usage', '401') - count(before, 'GET', '/api/v1/usage', '401')).toBe(1);
      expect(count(after, 'GET', 'unmatched', '404') - count(before, 'GET', 'unmatched', '404')).toBe(1);
      expect(count(after, 'GET', '/metrics', '200')).toBeGreaterThanOrEqual(1);
      expect(res.text).not.toContain(missing);
      expect(res.text).not.toContain('/no/such/route');
    });

    it('counts a rate-limit refusal by scope and plan', async () => {
      const { apiKey } = await server.createTenant('free');
      const refusals = (samples: Sample[]) => valueOf(samples, 'vigil_rate_limit_refusals_total', { scope: 'tenant', plan: 'free' }) ?? 0;
      const before = refusals(await scrape(url));
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await call(`${server.api}/usage`, { headers: { 'X-API-Key': apiKey } })).status);
      expect(statuses).toEqual([200, 200, 429]);
      expect(refusals(await scrape(url)) - before).toBe(1);
    });
  });

  describe('refusals before any route, and live-socket upgrades', () => {
    let server: TestServer;
    let url: string;
    let apiKey: string;
    beforeAll(async () => {
      server = await startServer({ env: { VIGIL_METRICS_TOKEN: TOKEN, VIGIL_OPEN_BODIES_PER_ADDRESS: '1' } });
      url = `${originOf(server)}/metrics`;
      ({ apiKey } = await server.createTenant('enterprise'));
    });
    afterAll(async () => server?.stop());

    const refusals = (samples: Sample[], reason: string) => valueOf(samples, 'vigil_http_refusals_total', { reason }) ?? 0;
    const upgrades = (samples: Sample[], outcome: string) => valueOf(samples, 'vigil_live_socket_upgrades_total', { outcome }) ?? 0;

    /** Raw bytes to the API port; what came back. */
    function raw(bytes: string): Promise<string> {
      return new Promise((resolve, reject) => {
        const socket = connect(Number(new URL(server.api).port), '127.0.0.1', () => socket.write(bytes));
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString()));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    }

    it('counts each refusal by its reason: over-long URL, NUL in path, JSON bounds, body too large, malformed request, open-body cap', async () => {
      const headers = { 'X-API-Key': apiKey };
      const before = await scrape(url);
      expect((await call(`${server.api}/scan?x=${'a'.repeat(9000)}`, { headers })).status).toBe(414);
      expect((await call(`${server.api}/scan/scn%00x`, { headers })).status).toBe(404);
      const manyKeys = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, i]));
      expect((await call(`${server.api}/scan`, { headers, json: manyKeys })).status).toBe(400);
      const huge = await fetch(`${server.api}/scan`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: `{"url":"${'a'.repeat(20 * 1024 * 1024)}"}`,
      });
      expect(huge.status).toBe(413);
      // (A body refused as too large may leave bytes on its connection that parse as a malformed request: measured apart.)
      const beforeMalformed = refusals(await scrape(url), 'malformed');
      expect(await raw('NOT HTTP AT ALL\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
      expect(refusals(await scrape(url), 'malformed') - beforeMalformed).toBe(1);

      // One slow body open from this address (the cap is 1): the next body is refused before it is read.
      // The slow request is counted once the server has authenticated it; a request of this loop still
      // between its own body and its answer at that moment makes the slow one the refused one (it is
      // answered 429): then it is sent again.
      let status = 0;
      const deadline = Date.now() + 60_000;
      while (status !== 429 && Date.now() < deadline) {
        const slow = connect(Number(new URL(server.api).port), '127.0.0.1');
        await new Promise<void>((r) => slow.once('connect', () => r()));
        let slowAnswered = false;
        slow.on('data', () => (slowAnswered = true));
        slow.write(
          `POST /api/v1/scan HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"url":`,
        );
        try {
          status = 0;
          while (status !== 429 && !slowAnswered && Date.now() < deadline) {
            if (status !== 0) await new Promise((r) => setTimeout(r, 100));
            status = (await call(`${server.api}/scan`, { headers, json: { url: 'not a url' } })).status;
          }
        } finally {
          slow.destroy();
        }
      }
      expect(status).toBe(429);

      const after = await scrape(url);
      expect(refusals(after, 'uri_too_long') - refusals(before, 'uri_too_long')).toBe(1);
      expect(refusals(after, 'nul_text') - refusals(before, 'nul_text')).toBe(1);
      expect(refusals(after, 'json_bounds') - refusals(before, 'json_bounds')).toBe(1);
      expect(refusals(after, 'body_too_large') - refusals(before, 'body_too_large')).toBe(1);
      expect(refusals(after, 'open_bodies_address') - refusals(before, 'open_bodies_address')).toBeGreaterThanOrEqual(1);
    });

    it('counts live-socket upgrades accepted and refused by reason, and the sockets open', async () => {
      const live = `${originOf(server).replace(/^http/, 'ws')}/ws/live`;
      const before = await scrape(url);
      expect((await call(`${originOf(server)}/ws/live`)).status).toBe(426);
      const refused = new WebSocket(`${live}?api_key=not-a-key`);
      const refusedStatus = await new Promise<number>((resolve) => refused.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
      expect(refusedStatus).toBe(401);
      const open = new WebSocket(`${live}?api_key=${apiKey}`);
      await new Promise<void>((resolve, reject) => {
        open.once('open', () => resolve());
        open.once('error', reject);
      });
      let during = await scrapeUntil(url, (s) => (valueOf(s, 'vigil_live_sockets_open') ?? 0) > (valueOf(before, 'vigil_live_sockets_open') ?? 0));
      expect(upgrades(during, 'accepted') - upgrades(before, 'accepted')).toBe(1);
      expect(upgrades(during, 'invalid_key') - upgrades(before, 'invalid_key')).toBe(1);
      expect(upgrades(during, 'not_websocket') - upgrades(before, 'not_websocket')).toBe(1);
      expect(valueOf(during, 'vigil_live_sockets_open')).toBe(1);
      open.close();
      during = await scrapeUntil(url, (s) => valueOf(s, 'vigil_live_sockets_open') === 0);
      expect(valueOf(during, 'vigil_live_sockets_open')).toBe(0);
    });
  });

  describe('on VIGIL_METRICS_PORT, a listener of its own', () => {
    it('serves the metrics there without a token, and not on the API server', async () => {
      const server = await startServer({ env: { VIGIL_METRICS_PORT: '0' } });
      try {
        const metricsUrl = server.vigil.metricsUrl!;
        expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
        expect(new URL(metricsUrl).port).not.toBe(new URL(originOf(server)).port);
        expect(server.announced.join('\n')).toContain(`Metrics (Prometheus) at ${metricsUrl}`);
        expect((await call(`${originOf(server)}/metrics`)).status).toBe(404);
        const elsewhere = await call(new URL('/api/v1/health', metricsUrl).href);
        expect(elsewhere.status).toBe(404);
        expect(elsewhere.body).toMatchObject({ error: 'NOT_FOUND', status: 404 });
        // The API server's requests are counted all the same.
        expect((await call(`${server.api}/health`)).status).toBe(200);
        const samples = await scrape(metricsUrl, {});
        expect(valueOf(samples, 'vigil_http_requests_total', { method: 'GET', route: '/api/v1/health', status: '200' })).toBeGreaterThanOrEqual(1);
      } finally {
        await server.stop();
      }
    });

    it('asks for the token there too when VIGIL_METRICS_TOKEN is also set', async () => {
      const server = await startServer({ env: { VIGIL_METRICS_PORT: '0', VIGIL_METRICS_TOKEN: TOKEN } });
      try {
        const metricsUrl = server.vigil.metricsUrl!;
        expect((await call(metricsUrl)).status).toBe(401);
        expect((await call(metricsUrl, { headers: bearer() })).status).toBe(200);
        expect((await call(`${originOf(server)}/metrics`, { headers: bearer() })).status).toBe(404);
      } finally {
        await server.stop();
      }
    });

    it('is how a worker process, which serves no HTTP, exposes its own metrics', async () => {
      const worker = await startServer({
        env: { VIGIL_ROLE: 'worker', VIGIL_PUBLIC_URL: 'http://127.0.0.1:9', VIGIL_METRICS_PORT: '0', VIGIL_WORKER_CONCURRENCY: '3' },
      });
      try {
        expect(worker.vigil.url).toBeUndefined();
        const samples = await scrape(worker.vigil.metricsUrl!, {});
        expect(valueOf(samples, 'vigil_process_info', { role: 'worker' })).toBe(1);
        expect(valueOf(samples, 'vigil_worker_slots')).toBeGreaterThanOrEqual(3);
        expect(valueOf(samples, 'vigil_worker_slots_in_use')).toBe(0);
      } finally {
        await worker.stop();
      }
    });
  });

  describe('scans, workers and notifications', () => {
    let server: TestServer;
    let url: string;
    let apiKey: string;
    let receiver: Server;
    let hooks: string;
    beforeAll(async () => {
      receiver = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.statusCode = req.url === '/ok' ? 200 : 400;
          res.end();
        });
      });
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
      hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      // A short lease: a worker notices within a second that its scan was taken.
      server = await startServer({ env: { VIGIL_METRICS_TOKEN: TOKEN, VIGIL_SCAN_LEASE_SECONDS: '2', VIGIL_SHUTDOWN_GRACE_SECONDS: '0' } });
      url = `${originOf(server)}/metrics`;
      // Team: outbound notifications, and room for the scans these tests run at once.
      ({ apiKey } = await server.createTenant('team'));
    });
    afterAll(async () => {
      await server?.stop();
      await new Promise((r) => receiver?.close(r));
    });

    const headers = () => ({ 'X-API-Key': apiKey });
    const duration = (samples: Sample[], mode: string, outcome: string) => valueOf(samples, 'vigil_scan_duration_seconds_count', { mode, outcome }) ?? 0;
    const losses = (samples: Sample[]) => valueOf(samples, 'vigil_scan_lease_losses_total') ?? 0;

    async function startRunning(target: string): Promise<string> {
      const start = await call(`${server.api}/scan`, { headers: headers(), json: { url: target } });
      expect(start.status, start.text).toBe(202);
      await waitForScan(server.api, apiKey, start.body.scan_id, ['running']);
      return start.body.scan_id;
    }

    it('a scan taken by another worker is a lease loss; a cancelled one is not; each ends with its outcome', async () => {
      const before = await scrape(url);
      const taken = await startRunning('http://target.test/?delay_ms=60000');
      // What a lapsed lease leads to: the scan is no longer this worker's (here another worker holds it).
      await server.vigil.services.store.db.updateTable('scans').set({ lease_owner: 'another-worker' }).where('id', '=', taken).execute();
      let after = await scrapeUntil(url, (s) => duration(s, 'security', 'lost') > duration(before, 'security', 'lost'));
      expect(duration(after, 'security', 'lost') - duration(before, 'security', 'lost')).toBe(1);
      expect(losses(after) - losses(before)).toBe(1);
      // The taken scan would come back to the queue when its lease lapses: cancelled, it holds no slot.
      expect((await call(`${server.api}/scan/${taken}/cancel`, { method: 'POST', headers: headers() })).status).toBe(200);

      const cancelled = await startRunning('http://target.test/?delay_ms=60000');
      expect((await call(`${server.api}/scan/${cancelled}/cancel`, { method: 'POST', headers: headers() })).status).toBe(200);
      const failing = await call(`${server.api}/scan`, { headers: headers(), json: { url: 'http://target.test/?outcome=fail&delay_ms=10' } });
      expect((await waitForScan(server.api, apiKey, failing.body.scan_id)).status).toBe('failed');
      after = await scrapeUntil(
        url,
        (s) =>
          duration(s, 'security', 'cancelled') > duration(before, 'security', 'cancelled') &&
          duration(s, 'security', 'failed') > duration(before, 'security', 'failed'),
      );
      expect(duration(after, 'security', 'cancelled') - duration(before, 'security', 'cancelled')).toBe(1);
      expect(duration(after, 'security', 'failed') - duration(before, 'security', 'failed')).toBe(1);
      expect(losses(after) - losses(before)).toBe(1);
    });

    it('observes the queue wait again when a scan is put back in the queue, from when it was put back', async () => {
      const { store } = server.vigil.services;
      const states = new ScanStates(store.db, store.dialect, new UsageRepository(store.db));
      const { apiKey: pro } = await server.createTenant('pro');
      const waits = (s: Sample[]) => valueOf(s, 'vigil_scan_queue_wait_seconds_count', { plan: 'pro' }) ?? 0;
      const withinAMinute = (s: Sample[]) => valueOf(s, 'vigil_scan_queue_wait_seconds_bucket', { plan: 'pro', le: '60' }) ?? 0;
      const before = await scrape(url);
      const start = await call(`${server.api}/scan`, { headers: { 'X-API-Key': pro }, json: { url: 'http://target.test/?delay_ms=60000' } });
      expect(start.status, start.text).toBe(202);
      const id: string = start.body.scan_id;
      await waitForScan(server.api, pro, id, ['running']);
      // Created two hours ago (a wait measured from creation would be over a minute), and now held by
      // another worker: this one stops its run.
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000).toISOString();
      const lost = (s: Sample[]) => valueOf(s, 'vigil_scan_duration_seconds_count', { mode: 'security', outcome: 'lost' }) ?? 0;
      await store.db.updateTable('scans').set({ created_at: twoHoursAgo, lease_owner: 'another-worker' }).where('id', '=', id).execute();
      await scrapeUntil(url, (s) => lost(s) > lost(before));
      // What that worker's shutdown does: the scan goes back to the queue, and this worker claims it again.
      expect(await states.release(id, 'another-worker')).toBe(true);
      const after = await scrapeUntil(url, (s) => waits(s) - waits(before) >= 2);
      expect(waits(after) - waits(before)).toBe(2);
      expect(withinAMinute(after) - withinAMinute(before)).toBe(2);
      const row = await store.db.selectFrom('scans').select(['status', 'queued_at', 'created_at']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(row.queued_at! > row.created_at).toBe(true);
      expect((await call(`${server.api}/scan/${id}/cancel`, { method: 'POST', headers: { 'X-API-Key': pro } })).status).toBe(200);
    });

    it("shows the scans waiting for a slot in the queue depth of their tenant's plan", async () => {
      const { apiKey: enterprise } = await server.createTenant('enterprise');
      const depth = (samples: Sample[]) => valueOf(samples, 'vigil_scan_queue_depth', { plan: 'enterprise' });
      expect(depth(await scrape(url))).toBe(0);
      // Two slots (VIGIL_WORKER_CONCURRENCY's default): the third slow scan waits in the queue.
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        const start = await call(`${server.api}/scan`, { headers: { 'X-API-Key': enterprise }, json: { url: 'http://target.test/?delay_ms=60000' } });
        expect(start.status, start.text).toBe(202);
        ids.push(start.body.scan_id);
      }
      const busy = await scrapeUntil(url, (s) => valueOf(s, 'vigil_worker_slots_in_use') === 2);
      expect(valueOf(busy, 'vigil_worker_slots_in_use')).toBe(2);
      expect(depth(busy)).toBe(1);
      expect(valueOf(busy, 'vigil_scan_queue_depth', { plan: 'team' })).toBe(0);
      for (const id of ids) expect((await call(`${server.api}/scan/${id}/cancel`, { method: 'POST', headers: { 'X-API-Key': enterprise } })).status).toBe(200);
      const idle = await scrapeUntil(url, (s) => valueOf(s, 'vigil_worker_slots_in_use') === 0);
      expect(depth(idle)).toBe(0);
      expect(valueOf(idle, 'vigil_worker_slots_in_use')).toBe(0);
    });

    it('counts notification deliveries by channel, event and outcome', async () => {
      const put = await call(`${server.api}/notifications`, {
        method: 'PUT',
        headers: headers(),
        json: {
          channels: [
            { kind: 'webhook', url: `${hooks}/ok`, events: ['scan_complete'] },
            { kind: 'webhook', url: `${hooks}/refuses`, events: ['scan_complete'] },
          ],
        },
      });
      expect(put.status, put.text).toBe(200);
      const deliveries = (samples: Sample[], outcome: string) =>
        valueOf(samples, 'vigil_notification_deliveries_total', { channel: 'webhook', event: 'scan_complete', outcome }) ?? 0;
      const before = await scrape(url);
      const start = await call(`${server.api}/scan`, { headers: headers(), json: { url: 'http://target.test/?delay_ms=10' } });
      expect((await waitForScan(server.api, apiKey, start.body.scan_id)).status).toBe('completed');
      const after = await scrapeUntil(
        url,
        (s) => deliveries(s, 'delivered') > deliveries(before, 'delivered') && deliveries(s, 'failed') > deliveries(before, 'failed'),
      );
      expect(deliveries(after, 'delivered') - deliveries(before, 'delivered')).toBe(1);
      expect(deliveries(after, 'failed') - deliveries(before, 'failed')).toBe(1);
    });
  });

  describe('after a real functional scan of a loopback site', () => {
    let site: Awaited<ReturnType<typeof startSite>>;
    let server: TestServer;
    let url: string;
    beforeAll(async () => {
      site = await startSite();
      server = await startServer({ engines: 'real', env: { VIGIL_METRICS_TOKEN: TOKEN } });
      url = `${originOf(server)}/metrics`;
    });
    afterAll(async () => {
      await server?.stop();
      await new Promise((r) => site?.server.close(r));
    });

    it('shows the request, the scan duration by mode and outcome, the queue wait by plan, and the slots and pages given back', async () => {
      const { apiKey } = await server.createTenant('team');
      const before = await scrape(url);
      const start = await call(`${server.api}/scan`, {
        headers: { 'X-API-Key': apiKey },
        json: { url: site.url, mode: 'functional', options: { pages: ['/clean'], viewport: { width: 800, height: 600 }, throttling: 'none' } },
      });
      expect(start.status, start.text).toBe(202);
      const done = await waitForScan(server.api, apiKey, start.body.scan_id, undefined, 120_000);
      expect(done.status, done.failure_reason).toBe('completed');

      const waits = (s: Sample[]) => valueOf(s, 'vigil_scan_queue_wait_seconds_count', { plan: 'team' }) ?? 0;
      const durations = (s: Sample[]) => valueOf(s, 'vigil_scan_duration_seconds_count', { mode: 'functional', outcome: 'completed' }) ?? 0;
      const after = await scrapeUntil(
        url,
        (s) => waits(s) > waits(before) && durations(s) > durations(before) && valueOf(s, 'vigil_worker_slots_in_use') === 0,
      );
      expect(valueOf(after, 'vigil_http_requests_total', { method: 'POST', route: '/api/v1/scan', status: '202' })).toBeGreaterThanOrEqual(1);
      expect(valueOf(after, 'vigil_http_requests_total', { method: 'GET', route: '/api/v1/scan/:id', status: '200' })).toBeGreaterThanOrEqual(1);
      expect(durations(after) - durations(before)).toBe(1);
      expect(valueOf(after, 'vigil_scan_duration_seconds_sum', { mode: 'functional', outcome: 'completed' })).toBeGreaterThan(0);
      expect(waits(after) - waits(before)).toBe(1);
      expect(valueOf(after, 'vigil_scan_queue_wait_seconds_bucket', { plan: 'team', le: '+Inf' })).toBe(waits(after));
      for (const plan of ['free', 'pro', 'team', 'enterprise']) expect(valueOf(after, 'vigil_scan_queue_depth', { plan }), plan).toBe(0);
      expect(valueOf(after, 'vigil_worker_slots_in_use')).toBe(0);
      expect(valueOf(after, 'vigil_chromium_pages_open')).toBe(0);
    });
  });
});
