/**
 * Fuzzes every operation of Vigil's own OpenAPI document with fast-check requests (valid, at and past
 * the limits, wrong types, huge, unicode, prototype keys, duplicate keys, malformed bodies, bad content
 * types, bad path values, odd headers, other keys; signed malformed provider events for the webhook),
 * from an enterprise and a free tenant and without keys, on the store the environment selects.
 *
 * Faults: any 5xx but the documented configuration 503s; a non-2xx body outside `{error, message,
 * status}` or with Fastify codes or stack traces; a 2xx to a request that breaks a documented limit;
 * another tenant's data in an answer; Object.prototype changed in the server process. Afterwards the
 * victim tenant, created first, must still be served and see exactly what it saw before.
 *
 * Deterministic: VIGIL_FUZZ_SEED (printed) and VIGIL_FUZZ_RUNS (per operation) reproduce a run.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeProvider } from '../billing/fake-provider.js';
import { signatureHeader } from '../billing/signing.js';
import { createLogger } from '../../src/app/logger.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { exchange, type RawResponse } from './raw-client.js';
import { operationsOf, requestsFor, type Draft, type Operation } from './requests.js';

const SEED = Number(process.env.VIGIL_FUZZ_SEED ?? 1_212_2025);
const RUNS_PER_OPERATION = Number(process.env.VIGIL_FUZZ_RUNS ?? 100);
const IN_FLIGHT = 4;
const WEBHOOK_SECRET = 'whsec_fuzz_secret';
const SYNC_KEY = 'fuzz-sync-key';
/** 503s that report configuration, not faults (docs/api.md). This server configures billing and sync; the language model stays unset. */
const CONFIGURATION_503 = new Set(['PAYMENT_NOT_CONFIGURED', 'SYNC_NOT_CONFIGURED', 'LLM_NOT_CONFIGURED']);
const STACK_TRACE = /\n\s+at \S|\bat [\w.<>$]+ \(|file:\/\/|node_modules|\/work\/|\.[jt]s:\d+:\d+/;
const ROTATE = 'POST /api/v1/keys/rotate';

interface Fault {
  fault: string;
  draft: Draft;
  status: number;
  answer: string;
}

describe(`API fuzz from the OpenAPI document (${storeLabel})`, () => {
  let provider: FakeProvider;
  let server: TestServer;
  let doc: any;
  const marker = `victimmark${Math.random().toString(36).slice(2, 10)}`;
  const victim = { tenantId: '', apiKey: '', scanIds: [] as string[], hanging: '' };
  const keys = { enterprise: '', free: '' };
  const attackerScanIds: string[] = [];
  let before: Record<string, unknown>;
  /** The server's error lines, to show the cause of each 500 next to the request that caused it. */
  const errorLines: Array<{ reqId?: string; err?: { message?: string } }> = [];

  const victimGet = (path: string) => call(`${server.api}${path}`, { headers: { 'X-API-Key': victim.apiKey } });
  async function victimView(): Promise<Record<string, unknown>> {
    const paths = ['/scans?per_page=100', '/usage', '/usage/alerts', '/usage/history', '/notifications', '/billing/status'];
    for (const id of victim.scanIds) paths.push(`/scan/${id}`, `/scan/${id}/results`, `/scan/${id}/export?format=json`);
    const answers = await Promise.all(paths.map(async (p) => [p, await victimGet(p)] as const));
    return Object.fromEntries(answers.map(([p, r]) => [p, { status: r.status, body: r.body ?? r.text }]));
  }

  beforeAll(async () => {
    provider = await new FakeProvider().start();
    provider.addPrice('price_pro_monthly', 4900);
    provider.addPrice('price_team_monthly', 14900);
    server = await startServer({
      logger: createLogger('error', { write: (line: string) => void errorLines.push(JSON.parse(line)) }),
      env: {
        PAYMENT_SECRET_KEY: provider.secretKey,
        PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
        PAYMENT_PRICE_ID_PRO: 'price_pro_monthly',
        PAYMENT_PRICE_ID_TEAM: 'price_team_monthly',
        PAYMENT_API_BASE: provider.url,
        SERVICE_APP_SYNC_KEY: SYNC_KEY,
        // Smaller limits than the defaults so that bodies past them cost little to send.
        VIGIL_BODY_LIMIT_BYTES: String(1024 * 1024),
        VIGIL_SPEC_MAX_BYTES: String(256 * 1024),
      },
    });
    doc = (await call(`${server.api}/openapi.json`)).body;

    // The victim: notification settings, finished scans and one that stays running while the attacker works.
    ({ tenantId: victim.tenantId, apiKey: victim.apiKey } = await server.createTenant('team'));
    const headers = { 'X-API-Key': victim.apiKey };
    const settings = await call(`${server.api}/notifications`, {
      method: 'PUT',
      headers,
      json: { channels: [{ kind: 'webhook', url: `http://127.0.0.1:1/${marker}`, headers: { Authorization: `Token ${marker}` }, secret: `${marker}-secret` }] },
    });
    expect(settings.status).toBe(200);
    for (const mode of ['security', 'full']) {
      const started = await call(`${server.api}/scan`, { headers, json: { url: `http://127.0.0.1:1/${marker}?delay_ms=10&outcome=findings`, mode } });
      expect(started.status).toBe(202);
      await waitForScan(server.api, victim.apiKey, started.body.scan_id);
      victim.scanIds.push(started.body.scan_id);
    }
    const hanging = await call(`${server.api}/scan`, { headers, json: { url: `http://127.0.0.1:1/${marker}?outcome=hang`, mode: 'security' } });
    expect(hanging.status).toBe(202);
    victim.hanging = hanging.body.scan_id;
    await waitForScan(server.api, victim.apiKey, victim.hanging, ['running']);
    victim.scanIds.push(victim.hanging);

    // The attackers: an enterprise tenant (no rate limit on a self-hosted server) and a free one, each with a scan of its own.
    keys.enterprise = (await server.createTenant('enterprise')).apiKey;
    keys.free = (await server.createTenant('free')).apiKey;
    for (const [key, mode] of [
      [keys.enterprise, 'full'],
      [keys.free, 'functional'],
    ] as const) {
      const started = await call(`${server.api}/scan`, { headers: { 'X-API-Key': key }, json: { url: 'http://127.0.0.1:1/own?delay_ms=10', mode } });
      expect(started.status).toBe(202);
      await waitForScan(server.api, key, started.body.scan_id);
      attackerScanIds.push(started.body.scan_id);
    }
    before = await victimView();
  });

  afterAll(async () => {
    if (victim.hanging) await call(`${server.api}/scan/${victim.hanging}/cancel`, { method: 'POST', headers: { 'X-API-Key': victim.apiKey } });
    await server?.stop();
    await provider?.stop();
  });

  function credentials(d: Draft): string[] {
    switch (d.key) {
      case 'enterprise':
        return [`X-API-Key: ${keys.enterprise}`];
      case 'free':
        return [`X-API-Key: ${keys.free}`];
      case 'malformed':
        return ['X-API-Key: svc_pk_short'];
      case 'unknown':
        return [`X-API-Key: svc_pk_${'A'.repeat(43)}`];
      case 'bearer':
        return [`Authorization: Bearer ${keys.enterprise}`];
      case 'duplicate':
        return [`X-API-Key: ${keys.enterprise}`, `X-API-Key: ${keys.enterprise}`];
      case 'sync':
        return [`X-Sync-Key: ${SYNC_KEY}`];
      case 'sync-wrong':
        return ['X-Sync-Key: not-the-sync-key'];
      case 'signed':
        return [`Provider-Signature: ${signatureHeader(d.body.toString('utf8'), WEBHOOK_SECRET)}`];
      default:
        return [];
    }
  }

  function send(d: Draft): Promise<RawResponse | null> {
    const port = Number(new URL(server.api).port);
    const lines = [`${d.method} ${d.target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...credentials(d), ...d.headers.map(([k, v]) => `${k}: ${v}`)];
    if (d.contentType !== undefined) lines.push(`Content-Type: ${d.contentType}`);
    const framed = d.headers.some(([k]) => /^(content-length|transfer-encoding)$/i.test(k));
    if (!framed && (d.body.length > 0 || d.method !== 'GET')) lines.push(`Content-Length: ${d.body.length}`);
    lines.push('Connection: close', '', '');
    return exchange(port, lines.join('\r\n'), d.body);
  }

  function faultsOf(d: Draft, res: RawResponse | null, secrets: string[]): string[] {
    if (!res) return ['connection closed without an answer'];
    const text = res.body.toString('utf8');
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const faults: string[] = [];
    const success = res.status >= 200 && res.status < 300;
    if (res.status >= 500 && !(res.status === 503 && CONFIGURATION_503.has(json?.error))) faults.push(`${res.status} ${json?.error ?? 'without a JSON body'}`);
    if (!success) {
      const shaped =
        json !== null && typeof json === 'object' && typeof json.error === 'string' && typeof json.message === 'string' && json.status === res.status;
      if (!shaped) faults.push(`${res.status} body not {error, message, status}`);
    }
    if (/FST_/.test(text)) faults.push('Fastify error code in the answer');
    if (!success && STACK_TRACE.test(text)) faults.push('stack trace or file path in the answer');
    if (success && d.expectRefusal) faults.push('2xx for a request past a documented limit');
    if (success && secrets.some((s) => text.includes(s))) faults.push("the victim's data in another tenant's answer");
    return faults;
  }

  it('answers every generated request within the contract, and the victim tenant sees no change', async () => {
    const ops: Operation[] = operationsOf(doc);
    const scanSchema = doc.paths['/api/v1/scan'].post.requestBody.content['application/json'].schema;
    const pools = {
      scanIds: [...attackerScanIds, ...victim.scanIds],
      tenantIds: [victim.tenantId],
      scanSchema,
      specMaxBytes: server.config.specMaxBytes,
      bodyLimitBytes: server.config.bodyLimitBytes,
    };
    const drafts = ops.flatMap((op, i) => fc.sample(requestsFor(op, pools), { seed: SEED + i, numRuns: RUNS_PER_OPERATION }));
    // Rotating the key invalidates it: those requests go last, one at a time, and a new key is adopted.
    const ordered = [...drafts.filter((d) => d.op !== ROTATE), ...drafts.filter((d) => d.op === ROTATE)];
    const secrets = [marker, victim.tenantId, ...victim.scanIds];
    const prototypeKeys = Object.getOwnPropertyNames(Object.prototype);

    const faults: Fault[] = [];
    const byStatus = new Map<string, number>();
    const byCode = new Map<string, number>();
    const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
    const started = Date.now();

    // A 500 names its request id; the server's log line for it tells the cause, which tells one 500 from another.
    const causeOf = (answer: string) => {
      const id = /"request_id":"([^"]+)"/.exec(answer)?.[1];
      const line = id ? errorLines.find((l) => l.reqId === id) : undefined;
      return line
        ? ` (server: ${String(line.err?.message)
            .replace(/-?\d[\d.e+]*/g, 'N')
            .slice(0, 120)})`
        : '';
    };
    const run = async (d: Draft) => {
      let res: RawResponse | null;
      try {
        res = await send(d);
      } catch (error) {
        faults.push({ fault: String((error as Error).message), draft: d, status: 0, answer: '' });
        return;
      }
      const text = res?.body.toString('utf8') ?? '';
      let code = '';
      try {
        code = JSON.parse(text)?.error ?? '';
      } catch {
        code = res && (res.status < 200 || res.status >= 300) ? '(not JSON)' : '';
      }
      count(byStatus, String(res?.status ?? 'none'));
      if (code) count(byCode, `${res!.status} ${code}`);
      for (const fault of faultsOf(d, res, secrets))
        faults.push({ fault: fault + causeOf(text), draft: d, status: res?.status ?? 0, answer: text.slice(0, 300) });
      const polluted = Object.getOwnPropertyNames(Object.prototype).filter((k) => !prototypeKeys.includes(k));
      if (polluted.length > 0) {
        faults.push({ fault: `Object.prototype polluted (${polluted.join(', ')})`, draft: d, status: res?.status ?? 0, answer: text.slice(0, 300) });
        for (const k of polluted) delete (Object.prototype as Record<string, unknown>)[k];
      }
      if (d.op === ROTATE && res?.status === 200 && (d.key === 'enterprise' || d.key === 'free' || d.key === 'bearer')) {
        keys[d.key === 'free' ? 'free' : 'enterprise'] = JSON.parse(text).api_key;
      }
    };
    let next = 0;
    const lane = async (exclusive: boolean) => {
      while (next < ordered.length) {
        const d = ordered[next]!;
        if (d.op === ROTATE && !exclusive) return;
        next += 1;
        await run(d);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, () => lane(false)));
    await lane(true);
    const seconds = (Date.now() - started) / 1000;

    // The victim afterwards: same view, still served.
    const after = await victimView();
    const usage = await victimGet('/usage');
    const again = await call(`${server.api}/scan`, {
      headers: { 'X-API-Key': victim.apiKey },
      json: { url: 'http://127.0.0.1:1/after?delay_ms=10', mode: 'security' },
    });
    const list = await victimGet('/scans?per_page=100');

    // One class per kind of fault (the operations it was seen on listed), with its smallest example.
    const classes = new Map<string, Fault[]>();
    for (const f of faults) classes.set(f.fault, [...(classes.get(f.fault) ?? []), f]);
    const sorted = (map: Map<string, number>) => Object.fromEntries([...map].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })));
    const size = (f: Fault) => f.draft.target.length + f.draft.body.length + f.draft.headers.join().length;
    console.log(
      [
        `API fuzz on ${storeLabel}: seed ${SEED} (VIGIL_FUZZ_SEED), ${RUNS_PER_OPERATION} runs per operation (VIGIL_FUZZ_RUNS), ${ops.length} operations, ${ordered.length} requests in ${seconds.toFixed(1)} s`,
        `status histogram: ${JSON.stringify(sorted(byStatus))}`,
        `error codes: ${JSON.stringify(sorted(byCode))}`,
        `fault classes: ${classes.size}`,
        ...[...classes].map(([name, list]) => {
          const f = [...list].sort((a, b) => size(a) - size(b))[0]!;
          const d = f.draft;
          const where = [...new Set(list.map((x) => x.draft.op))];
          const headers = d.headers.length > 0 ? ` headers=${JSON.stringify(d.headers).slice(0, 120)}` : '';
          return [
            `  ${list.length} x ${name} on ${where.length} operation(s): ${where.join(', ').slice(0, 400)}`,
            `    e.g. [${d.category}: ${d.note.slice(0, 160)}] key=${d.key} ${d.method} ${d.target.slice(0, 200)} content-type=${d.contentType ?? '(none)'}${headers} body=${JSON.stringify(d.body.subarray(0, 240).toString('utf8'))}`,
            `    -> ${f.status} ${f.answer.slice(0, 200)}`,
          ].join('\n');
        }),
      ].join('\n'),
    );

    expect(after).toEqual(before);
    expect(usage.status).toBe(200);
    expect(again.status).toBe(202);
    expect(list.body.scans.map((s: { scan_id: string }) => s.scan_id)).toContain(again.body.scan_id);
    expect([...classes.keys()]).toEqual([]);
  }, 600_000);
});
