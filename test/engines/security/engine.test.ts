/** Engine behaviour around the checks: exclude, fail_on, cancellation, concurrency, progress. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecurityEngine, failOnReached } from '../../../src/engines/security/index.js';
import { TargetClient } from '../../../src/engines/security/client.js';
import { PHASES } from '../../../src/engines/security/phases.js';
import { ScanSession, compileExclude } from '../../../src/engines/security/session.js';
import { DEFAULT_TUNING } from '../../../src/engines/security/types.js';
import { TOKENS, startFixture, type Fixture } from '../../fixtures/vulnerable-api/server.js';
import { makeCtx } from './helpers.js';

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(async () => {
  await fx?.close();
});

describe('security engine', () => {
  it('honours options.exclude and reports progress up to 100', async () => {
    const ctx = makeCtx({ url: `${fx.url}/vuln`, options: { exclude: ['/cmd/*', 'POST *', '*/ssrf/fetch*'] } as never });
    const out = await createSecurityEngine({ tuning: { timeDelayMs: 300, rateLimitBurst: 10 } }).run(ctx);
    const endpoints = new Set(out.tasks.map((t) => t.endpoint));
    expect(endpoints.has('GET /cmd/ping')).toBe(false);
    expect(endpoints.has('GET /ssrf/fetch')).toBe(false);
    expect([...endpoints].some((e) => e?.startsWith('POST '))).toBe(false);
    expect(endpoints.has('GET /sqli/items')).toBe(true);
    expect(ctx.progressSeen.at(-1)).toBe(100);
    // The phase while it runs: discovery, then the operation phases in order; the findings so far only grow, to the failed count.
    const phases = ctx.detailSeen.flatMap((d) => (d.phase ? [d.phase] : [])).filter((p, i, all) => p !== all[i - 1]);
    expect(phases).toEqual(['discovery', ...PHASES]);
    const findings = ctx.detailSeen.flatMap((d) => (d.findings === undefined ? [] : [d.findings]));
    expect(findings).toEqual([...findings].sort((a, b) => a - b));
    expect(findings.at(-1)).toBe(out.tasks.filter((t) => t.status === 'failed').length);
    expect(findings.at(-1)).toBeGreaterThan(0);
    expect(out.agent_count).toBeGreaterThanOrEqual(1);
    expect(out.agent_count).toBeLessThanOrEqual(5);
  });

  it('never has more requests in flight than options.concurrency', async () => {
    const out = await createSecurityEngine({ tuning: { onlyChecks: ['server-errors', 'misconfiguration'] } }).run(
      makeCtx({ url: `${fx.url}/fixed`, options: { concurrency: 2 } as never }),
    );
    expect(out.agent_count).toBe(2);
  });

  it('stops within a second of cancellation', async () => {
    const ac = new AbortController();
    const run = createSecurityEngine({ tuning: { timeDelayMs: 900 } }).run(makeCtx({ url: `${fx.url}/vuln` }, { signal: ac.signal }));
    await new Promise((r) => setTimeout(r, 400));
    const t0 = Date.now();
    ac.abort(new Error('cancelled'));
    await expect(run).rejects.toBeTruthy();
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('exclude patterns: * is any run, the rest literal', () => {
    const ex = compileExclude(['/users/*', 'DELETE *']);
    const op = (method: string, path: string) => ({ key: `${method} ${path}`, path, method }) as never;
    expect(ex(op('GET', '/users/{id}'), 'http://t/users/1')).toBe(true);
    expect(ex(op('DELETE', '/items/{id}'), 'http://t/items/1')).toBe(true);
    expect(ex(op('GET', '/items'), 'http://t/items')).toBe(false);
    expect(ex(op('GET', '/usersX'), 'http://t/usersX')).toBe(false);
    // Without *, a path covers its subtree (docs/scans.md), not siblings sharing a prefix.
    const sub = compileExclude(['/admin']);
    expect(sub(op('GET', '/admin/users'), 'http://t/admin/users')).toBe(true);
    expect(sub(op('GET', '/administrator'), 'http://t/administrator')).toBe(false);
  });

  it('fail_on is reached by a failed task of that severity or higher only', () => {
    const t = (status: 'passed' | 'failed', severity: 'high' | 'low' | 'info') => ({ task_id: 'x', name: 'x', status, severity });
    expect(failOnReached([t('failed', 'low')], 'high')).toBe(false);
    expect(failOnReached([t('failed', 'high')], 'high')).toBe(true);
    expect(failOnReached([t('failed', 'high')], 'medium')).toBe(true);
    expect(failOnReached([t('passed', 'high')], 'low')).toBe(false);
    expect(failOnReached([t('failed', 'high')], undefined)).toBe(false);
  });

  it('masks the secondary identity token too', async () => {
    const out = await createSecurityEngine({ tuning: { onlyChecks: ['bola', 'jwt'] } }).run(
      makeCtx({ url: `${fx.url}/vuln`, auth: { type: 'bearer', token: TOKENS.vuln.alice, secondary: { type: 'bearer', token: TOKENS.vuln.bob } } }),
    );
    const text = JSON.stringify(out.tasks);
    expect(out.tasks.some((t) => t.status === 'failed')).toBe(true);
    expect(text).not.toContain(TOKENS.vuln.alice);
    expect(text).not.toContain(TOKENS.vuln.bob);
  });

  it('builds request URLs exactly as URL parsing would (fast path included)', () => {
    const model = (serverPath: string) => ({ title: '', apiVersion: '', specVersion: '3.0.3', serverPath, serverSchemes: [], operations: [] });
    const paths = [
      '/users/1',
      '/files/..%2F..%2Fetc%2Fpasswd',
      '/a/../b',
      '/a/./b',
      '/a/%2e%2E/b',
      "/q/it's(1)*!",
      '/sp ace',
      '/x/%zz',
      '/ü',
      '/a|b',
      '/a\\b',
      'rel/path',
      '/e/%C3%A9',
      '/..',
      '/x/.%2e/y',
      '/a?b=1',
    ];
    const queries: [string, string][][] = [
      [],
      [['q', "1' OR '1'='1"]],
      [
        ['a', 'x y&z=1'],
        ['a', '€'],
      ],
      [['q[$ne]', '']],
    ];
    for (const target of ['http://t.example:8080/api', 'https://t.example', 'http://t.example/base/', 'http://t.example/with%20space']) {
      for (const sp of ['', '/v2', '/v 2']) {
        const s = new ScanSession({} as never, model(sp), target, undefined, DEFAULT_TUNING, new AbortController().signal);
        for (const p of paths) {
          for (const q of queries) {
            const u = new URL(s.baseUrl + (p.startsWith('/') ? p : `/${p}`));
            for (const [k, v] of q) u.searchParams.append(k, v);
            expect(s.url(p, q), `${target} ${sp} ${p}`).toBe(u.href);
          }
        }
      }
    }
  });

  it('the per-request timeout bounds the whole exchange (silent server and trickling body), and cancellation aborts requests in flight', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/silent') return; // never answers
      res.writeHead(200, { 'content-type': 'text/plain' });
      const t = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(t));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const ac = new AbortController();
    const client = new TargetClient({ allowPrivate: true, concurrency: 3, timeoutMs: 400, signal: ac.signal, maxBodyBytes: 1024 });
    try {
      for (const path of ['/silent', '/trickle']) {
        const t0 = performance.now();
        const res = await client.send({ method: 'GET', url: base + path, headers: {} });
        const took = performance.now() - t0;
        expect(res.status, path).toBe(0);
        expect(res.error, path).toBe('timeout');
        expect(took, path).toBeGreaterThanOrEqual(390);
        expect(took, path).toBeLessThan(2000);
      }
      const pending = client.send({ method: 'GET', url: `${base}/silent`, headers: {}, timeoutMs: 10_000 });
      await new Promise((r) => setTimeout(r, 50));
      const t0 = performance.now();
      ac.abort(new Error('cancelled'));
      await expect(pending).rejects.toThrow('cancelled');
      expect(performance.now() - t0).toBeLessThan(500);
      // Slots were released: nothing is left in flight.
      expect(client.slots.tryAcquire()).toBe(true);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
