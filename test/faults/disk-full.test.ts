/**
 * A full disk under the data directory (a small tmpfs mounted by the test): readiness says so; on the
 * embedded store a scan that cannot be written is refused with 503 in the error shape naming the disk
 * (it was 500), a scan admitted is failed with a reason naming it; on the distributed store (scans and
 * images in PostgreSQL) scans still run. Everything works again once space is freed. Needs root to mount the tmpfs; skipped with the reason printed otherwise.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSite } from '../fixtures/site/server.js';
import { call, startServer, storeLabel, usingPostgres, waitForScan, type TestServer } from '../helpers/server.js';

function mountTmpfs(dir: string, megabytes: number): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `cannot mount a tmpfs (${String((error as Error).message).split('\n')[0]}): run as root to test a full disk`;
  }
}

/** Writes zeros into `file` until the file system refuses (ENOSPC). */
function fillDisk(file: string): void {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-disk-full-'));
const unavailable = mountTmpfs(dataDir, 128);
if (unavailable) console.log(`[faults] disk-full skipped: ${unavailable}`);

describe.skipIf(Boolean(unavailable))(`a full disk under the data directory (${storeLabel})`, () => {
  let server: TestServer;
  let site: Awaited<ReturnType<typeof startSite>>;
  let apiKey: string;
  const filler = join(dataDir, 'filler');

  beforeAll(async () => {
    site = await startSite();
    server = await startServer({ engines: 'real', env: { VIGIL_DATA_DIR: dataDir } });
    ({ apiKey } = await server.createTenant('enterprise'));
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise((r) => site?.server.close(r));
    try {
      execFileSync('umount', [dataDir]);
    } catch {
      /* already unmounted */
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('readiness fails; a scan that cannot be stored is 503 naming the disk, never 500; served again once space is freed', async () => {
    fillDisk(filler);
    const ready = await call(`${server.api}/health/ready`);
    expect(ready.status).toBe(503);
    expect(ready.body.checks.disk).toMatch(/free/);
    expect((await call(`${server.api}/health`)).status).toBe(200);

    const started = performance.now();
    const start = await call(`${server.api}/scan`, {
      headers: { 'X-API-Key': apiKey },
      json: { url: site.url, mode: 'functional', options: { pages: ['/clean'] } },
    });
    console.log(`[faults] disk full: POST /scan answered ${start.status} ${start.body?.error ?? ''}`);
    expect(start.status, start.text).not.toBe(500);
    if (usingPostgres) {
      // Distributed: the database keeps the scan and its images, so a full data directory stops nothing
      // but readiness (which an operator's load balancer acts on).
      expect(start.status, start.text).toBe(202);
      const final = await waitForScan(server.api, apiKey, start.body.scan_id, ['completed', 'failed', 'cancelled'], 120_000);
      expect(final.status, final.failure_reason).toBe('completed');
    } else if (start.status === 202) {
      const final = await waitForScan(server.api, apiKey, start.body.scan_id, ['completed', 'failed', 'cancelled'], 120_000);
      console.log(`[faults] disk full: the scan ended ${final.status} after ${Math.round(performance.now() - started)} ms: ${final.failure_reason}`);
      expect(final.status).toBe('failed');
      expect(final.failure_reason).toMatch(/disk|space/i);
    } else {
      expect(start.status).toBe(503);
      expect(start.body).toMatchObject({ error: 'SERVICE_UNAVAILABLE', status: 503 });
      expect(start.body.message).toMatch(/disk|space/i);
    }

    rmSync(filler);
    const readyAgain = await call(`${server.api}/health/ready`);
    expect(readyAgain.status, readyAgain.text).toBe(200);
    const again = await call(`${server.api}/scan`, {
      headers: { 'X-API-Key': apiKey },
      json: { url: site.url, mode: 'functional', options: { pages: ['/clean'] } },
    });
    expect(again.status, again.text).toBe(202);
    const done = await waitForScan(server.api, apiKey, again.body.scan_id, ['completed', 'failed', 'cancelled'], 120_000);
    expect(done.status, done.failure_reason).toBe('completed');
  }, 300_000);
});
