/** GET /health/ready: 200 with every check ok; 503 in the error shape, naming the check, when one fails. */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '../../src/engines/functional/browser.js';
import { call, startServer, storeLabel, usingRedis, type TestServer } from '../helpers/server.js';

describe(`GET /health/ready (${storeLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server?.stop());

  it('answers 200 with each check when store, Redis, disk and the browser are usable; /health is unchanged', async () => {
    const res = await call(`${server.api}/health/ready`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { store: 'ok', browser: 'ok', disk: 'ok', ...(usingRedis ? { redis: 'ok' } : {}) } });
    expect((await call(`${server.api}/health`)).body).toEqual({ status: 'ok' });
  });

  it('answers 503 SERVICE_UNAVAILABLE naming the failed check when the data directory is unusable', async () => {
    const readiness = server.vigil.services.readiness;
    const dataDir = readiness.dataDir;
    readiness.dataDir = '/nonexistent/vigil-data';
    try {
      const res = await call(`${server.api}/health/ready`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.body).toMatchObject({ error: 'SERVICE_UNAVAILABLE', status: 503, checks: { store: 'ok', disk: expect.stringContaining('not readable') } });
      expect(res.body.message).toMatch(/^Not ready: disk: /);
    } finally {
      readiness.dataDir = dataDir;
    }
  });
});

describe(`GET /health/ready: the browser of a process that runs scans (${storeLabel})`, () => {
  const missing = '/nonexistent/chromium';

  async function readyOf(env: Record<string, string>, engines?: 'real') {
    const server = await startServer({ env, engines });
    try {
      return await call(`${server.api}/health/ready`);
    } finally {
      await server.stop();
    }
  }

  for (const engines of [undefined, 'real'] as const) {
    it(`answers 503 naming the browser when CHROMIUM_PATH is not an executable (${engines ?? 'test'} engines)`, async () => {
      const res = await readyOf({ CHROMIUM_PATH: missing }, engines);
      expect(res.status, res.text).toBe(503);
      expect(res.body.checks).toMatchObject({
        store: 'ok',
        disk: 'ok',
        browser: expect.stringContaining(`CHROMIUM_PATH=${missing} is not an executable file`),
      });
      expect(res.body.message).toMatch(/^Not ready: browser: CHROMIUM_PATH=/);
    });
  }

  it("answers 200 with the real engine and the machine's Chromium", async () => {
    const server = await startServer({ engines: 'real' });
    try {
      for (let i = 0; i < 3; i += 1) {
        const res = await call(`${server.api}/health/ready`);
        expect(res.status, res.text).toBe(200);
        expect(res.body.checks.browser).toBe('ok');
      }
    } finally {
      await server.stop();
    }
  });

  it('launches Chromium once for the first probe, never per probe', async () => {
    const pool = new BrowserPool({ idleCloseMs: 60_000 });
    try {
      for (let i = 0; i < 5; i += 1) expect(pool.readiness()).toBe('ok');
      const deadline = Date.now() + 30_000;
      while (pool.launches === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      for (let i = 0; i < 5; i += 1) expect(pool.readiness()).toBe('ok');
      expect(pool.launches).toBe(1);
      expect(pool.running).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it("answers 503 once a Chromium that is found fails to start (the launch check's outcome, kept until it starts again)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-chromium-'));
    const broken = join(dir, 'chromium');
    writeFileSync(broken, '#!/bin/sh\necho "cannot open shared object file" >&2\nexit 1\n');
    chmodSync(broken, 0o755);
    const server = await startServer({ engines: 'real', env: { CHROMIUM_PATH: broken } });
    try {
      // The first probe finds the executable and starts the launch check in the background; a later probe reads its outcome.
      const deadline = Date.now() + 30_000;
      let res = await call(`${server.api}/health/ready`);
      while (res.status === 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        res = await call(`${server.api}/health/ready`);
      }
      expect(res.status, res.text).toBe(503);
      expect(res.body.checks.browser).toContain(`Chromium at ${broken} failed to start`);
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is answered for a worker process, which serves no API, on its VIGIL_METRICS_PORT listener', async () => {
    const env = { VIGIL_ROLE: 'worker', VIGIL_PUBLIC_URL: 'http://127.0.0.1:9', VIGIL_METRICS_PORT: '0' };
    for (const [chromium, status] of [
      [missing, 503],
      [undefined, 200],
    ] as const) {
      const worker = await startServer({ env: { ...env, ...(chromium ? { CHROMIUM_PATH: chromium } : {}) } });
      try {
        const res = await call(new URL('/health/ready', worker.vigil.metricsUrl!).href);
        expect(res.status, res.text).toBe(status);
        expect(res.body.checks.browser).toEqual(chromium ? expect.stringContaining(`CHROMIUM_PATH=${missing}`) : 'ok');
      } finally {
        await worker.stop();
      }
    }
  });

  it('is not checked by an api-only process (it runs no browser)', async () => {
    const res = await readyOf({ VIGIL_ROLE: 'api', CHROMIUM_PATH: missing });
    expect(res.status, res.text).toBe(200);
    expect(res.body.checks.browser).toBeUndefined();
  });
});
