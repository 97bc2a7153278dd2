import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { deliver, renderFor, scanEvents, sendAll, teamsBody, TEAMS_MAX_BYTES, type Channel } from '../../src/notifications/index.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
const servers: Array<{ close: () => void }> = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function receiver(handler: Handler) {
  const hits: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push({ headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push({ close: () => server.closeAllConnections?.() ?? server.close() });
  servers.push({ close: () => server.close() });
  return { url: `http://127.0.0.1:${(server.address() as any).port}/hook`, hits };
}

const now = new Date('2026-11-22T10:00:00.000Z');
const results = (n = 2) => ({
  scan_id: 'scn_abc',
  status: 'completed',
  url: 'https://api.example.com',
  spec_url: 'https://api.example.com/openapi.json',
  elapsed_seconds: 12.4,
  tasks: [
    ...Array.from({ length: n }, (_, i) => ({
      task_id: `t${i}`,
      name: `Broken object level authorization on item ${i} ${'x'.repeat(40)}`,
      status: 'failed',
      severity: i % 2 ? 'high' : 'critical',
      endpoint: `GET /items/{id}/${i}`,
      parameter: 'id',
      cwe: 'CWE-639',
      owasp: 'API1:2023',
    })),
    { task_id: 'ok', name: 'fine', status: 'passed', severity: 'low' },
    { task_id: 'm', name: 'medium one', status: 'failed', severity: 'medium' },
  ],
});

describe('notification payloads', () => {
  it('carry exactly the contract fields', () => {
    const events = scanEvents(results(2), { appUrl: 'https://app.vigil.dev/', now });
    const complete = events.find((e) => e.event === 'scan_complete')!;
    expect(complete).toEqual({
      event: 'scan_complete',
      scan_id: 'scn_abc',
      timestamp: '2026-11-22T10:00:00.000Z',
      target: 'https://api.example.com',
      spec: 'https://api.example.com/openapi.json',
      summary: { critical: 1, high: 1, medium: 1, low: 0, info: 0, total: 3 },
      status: 'completed',
      duration_seconds: 12,
      dashboard_url: 'https://app.vigil.dev/scans/scn_abc',
    });
    expect(events.map((e) => e.event)).toEqual(['scan_complete', 'finding_critical', 'finding_high']);
    expect(events[1]).toEqual({
      event: 'finding_critical',
      scan_id: 'scn_abc',
      timestamp: '2026-11-22T10:00:00.000Z',
      dashboard_url: 'https://app.vigil.dev/scans/scn_abc',
      finding: {
        id: 't0',
        title: expect.stringMatching(/^Broken object/),
        severity: 'critical',
        endpoint: 'GET /items/{id}/0',
        parameter: 'id',
        cwe: 'CWE-639',
        owasp: 'API1:2023',
      },
    });
    expect(Object.keys(events[2]!).sort()).toEqual(['dashboard_url', 'event', 'finding', 'scan_id', 'timestamp']);
  });

  it('adds scan_failed for failed scans and when the threshold is reached', () => {
    expect(scanEvents({ ...results(0), status: 'failed' }, { appUrl: 'https://a', now }).map((e) => e.event)).toEqual(['scan_complete', 'scan_failed']);
    expect(scanEvents(results(0), { appUrl: 'https://a', now, thresholdReached: true }).map((e) => e.event)).toEqual(['scan_complete', 'scan_failed']);
  });

  it('Teams card stays under 28 KB with 500 findings and says how many were left out', () => {
    const events = scanEvents(results(500), { appUrl: 'https://app.vigil.dev', now });
    const findings = events.filter((e) => e.event.startsWith('finding_')).map((e: any) => e.finding);
    expect(findings).toHaveLength(500);
    const { body, omitted } = teamsBody(events[0]!, findings);
    const bytes = Buffer.byteLength(JSON.stringify(body));
    expect(bytes).toBeLessThanOrEqual(TEAMS_MAX_BYTES);
    expect(omitted).toBeGreaterThan(0);
    expect(JSON.stringify(body)).toContain(`and ${omitted} more finding(s) not shown`);
    const shown = (body as any).attachments[0].content.body.filter((b: any) => /^\[(critical|high)\]/.test(b.text)).length;
    expect(shown + omitted).toBe(500);
    // As many as fit: one more would go over.
    expect(Buffer.byteLength(JSON.stringify(teamsBody(events[0]!, findings.slice(0, shown + 1)).body))).toBeGreaterThan(TEAMS_MAX_BYTES - 200);
  });
});

describe('delivery to local receivers', () => {
  const events = () => scanEvents(results(2), { appUrl: 'https://app.vigil.dev', now });

  it('generic webhook: custom headers and a verifiable X-Vigil-Signature', async () => {
    const r = await receiver((_q, res) => res.end('ok'));
    const channel: Channel = { kind: 'webhook', url: r.url, headers: { Authorization: 'Token abc' }, secret: 'whsec' };
    const out = await sendAll([channel], events(), { timeoutMs: 2000 });
    expect(out.every((d) => d.ok)).toBe(true);
    expect(r.hits).toHaveLength(3);
    for (const hit of r.hits) {
      expect(hit.headers.authorization).toBe('Token abc');
      expect(hit.headers['content-type']).toBe('application/json');
      const expected = `sha256=${createHmac('sha256', 'whsec').update(hit.body).digest('hex')}`;
      expect(hit.headers['x-vigil-signature']).toBe(expected);
    }
    expect(JSON.parse(r.hits[0]!.body)).toEqual(events()[0]);
  });

  it('slack and teams receive chat-shaped bodies, one per scan event', async () => {
    const slack = await receiver((_q, res) => res.end('ok'));
    const teams = await receiver((_q, res) => res.end('1'));
    const out = await sendAll(
      [
        { kind: 'slack', url: slack.url },
        { kind: 'teams', url: teams.url },
      ],
      events(),
      { timeoutMs: 2000 },
    );
    expect(out.every((d) => d.ok)).toBe(true);
    expect(slack.hits).toHaveLength(1);
    const s = JSON.parse(slack.hits[0]!.body);
    expect(s.text).toMatch(/scn_abc completed/);
    expect(s.vigil.event).toBe('scan_complete');
    const t = JSON.parse(teams.hits[0]!.body);
    expect(t.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(JSON.stringify(t)).toContain('GET /items/{id}/0');
  });

  it('a hanging receiver is cut at the configured timeout, retried a bounded number of times', async () => {
    const r = await receiver(() => undefined); // never answers
    const started = Date.now();
    const result = await deliver({ kind: 'webhook', url: r.url }, events()[0]!, '{}', { timeoutMs: 300, attempts: 2, backoffMs: 10 });
    const took = Date.now() - started;
    expect(result).toMatchObject({ ok: false, attempts: 2, status: null });
    expect(result.error).toMatch(/timeout/);
    expect(took).toBeGreaterThanOrEqual(600);
    expect(took).toBeLessThan(3000);
    expect(r.hits).toHaveLength(2);
  });

  it('retries 5xx with backoff and stops after the last attempt; 4xx is not retried', async () => {
    const failing = await receiver((_q, res) => {
      res.statusCode = 503;
      res.end();
    });
    const delays: number[] = [];
    const res = await deliver({ kind: 'webhook', url: failing.url }, events()[0]!, '{}', {
      attempts: 3,
      backoffMs: 100,
      sleep: async (ms) => {
        delays.push(ms);
      },
    });
    expect(res).toMatchObject({ ok: false, attempts: 3, status: 503 });
    expect(failing.hits).toHaveLength(3);
    expect(delays).toEqual([100, 200]);
    const bad = await receiver((_q, res) => {
      res.statusCode = 400;
      res.end();
    });
    expect(await deliver({ kind: 'webhook', url: bad.url }, events()[0]!, '{}', { attempts: 3, sleep: async () => undefined })).toMatchObject({
      ok: false,
      attempts: 1,
      status: 400,
    });
    let n = 0;
    const flaky = await receiver((_q, res) => {
      n += 1;
      res.statusCode = n < 2 ? 500 : 204;
      res.end();
    });
    expect(await deliver({ kind: 'webhook', url: flaky.url }, events()[0]!, '{}', { attempts: 3, sleep: async () => undefined })).toMatchObject({
      ok: true,
      attempts: 2,
      status: 204,
    });
  });

  it('never throws: unreachable hosts and refused addresses become results', async () => {
    const out = await sendAll(
      [
        { kind: 'webhook', url: 'http://127.0.0.1:1/x' },
        { kind: 'slack', url: 'https://blocked.test/x' },
      ],
      events(),
      {
        attempts: 1,
        timeoutMs: 500,
        checkUrl: async (u) => {
          if (u.hostname === 'blocked.test') throw new Error('address not allowed');
        },
      },
    );
    expect(out.every((d) => !d.ok)).toBe(true);
    expect(out.find((d) => d.channel === 'slack')!.error).toMatch(/not allowed/);
    expect(renderFor({ kind: 'webhook', url: 'https://x' }, events()[0]!)).toBe(JSON.stringify(events()[0]));
  });
});
