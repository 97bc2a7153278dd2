/**
 * GET /cli/vigil-cli.tgz and its .sha256: the client package served by Vigil itself, so CI installs it from
 * the server it talks to (checksummed) instead of a public registry name nobody here owns.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../src/http/errors.js';
import { cliPackageRoutes } from '../../src/http/routes/cli-package.js';

describe('the client package served by the server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-served-cli-'));
  const file = join(dir, 'vigil-cli.tgz');
  const apps: Array<ReturnType<typeof Fastify>> = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });
  async function serve(path: string) {
    const app = Fastify();
    registerErrorHandling(app, { appUrl: 'https://vigil.test/app' });
    await app.register(async (root) => cliPackageRoutes(root, path));
    apps.push(app);
    return app;
  }

  it('serves the tarball with its SHA-256 in a header and in the .sha256 file sha256sum reads', async () => {
    const bytes = Buffer.from('a tarball, for this test');
    writeFileSync(file, bytes);
    const sha = createHash('sha256').update(bytes).digest('hex');
    const app = await serve(file);
    const tgz = await app.inject({ method: 'GET', url: '/cli/vigil-cli.tgz' });
    expect(tgz.statusCode).toBe(200);
    expect(tgz.headers['content-type']).toBe('application/gzip');
    expect(tgz.headers['x-checksum-sha256']).toBe(sha);
    expect(tgz.rawPayload.equals(bytes)).toBe(true);
    const sum = await app.inject({ method: 'GET', url: '/cli/vigil-cli.tgz.sha256' });
    expect(sum.body).toBe(`${sha}  vigil-cli.tgz\n`);
  });

  it('answers 404 in the error shape, saying how to build it, on a server where it was not built', async () => {
    const app = await serve(join(dir, 'absent.tgz'));
    for (const url of ['/cli/vigil-cli.tgz', '/cli/vigil-cli.tgz.sha256']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ error: 'NOT_FOUND', message: expect.stringContaining('npm run build') });
    }
  });
});
