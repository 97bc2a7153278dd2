import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../src/http/errors.js';
import { dashboardRoutes } from '../../src/http/routes/dashboard.js';

/** The /app static route on its own: not built yet, then built (a file appears without a restart). */
describe('dashboard static route', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-web-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers 503 DASHBOARD_NOT_BUILT in the error shape until the build exists, then serves it', async () => {
    const app = Fastify();
    registerErrorHandling(app, { appUrl: 'http://127.0.0.1/app' });
    await app.register(async (root) => dashboardRoutes(root, { dir }));

    const before = await app.inject('/app/scans');
    expect(before.statusCode).toBe(503);
    expect(before.json()).toMatchObject({ error: 'DASHBOARD_NOT_BUILT', status: 503 });
    expect(before.headers['content-security-policy']).toContain("default-src 'none'");

    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>x</title><script type="module" src="/app/assets/main-abc123.js"></script>');
    writeFileSync(join(dir, 'assets/main-abc123.js'), `console.log(${JSON.stringify('x'.repeat(2000))});`);

    const page = await app.inject('/app/scans/scn_1?x=1');
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.body).toContain('<title>x</title>');
    const gz = await app.inject({ url: '/app/assets/main-abc123.js', headers: { 'accept-encoding': 'gzip, br' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['cache-control']).toContain('immutable');
    const plain = await app.inject('/app/assets/main-abc123.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toContain('console.log');
    expect((await app.inject('/app/assets/../../etc/passwd')).statusCode).not.toBe(500);
    expect((await app.inject('/app')).headers.location).toBe('/app/');
    await app.close();
  });
});
