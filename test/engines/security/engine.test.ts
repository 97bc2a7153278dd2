/** Engine behaviour around the checks: exclude, fail_on, cancellation, concurrency, progress. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecurityEngine, failOnReached } from '../../../src/engines/security/index.js';
import { compileExclude } from '../../../src/engines/security/session.js';
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
});
