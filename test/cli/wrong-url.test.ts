/**
 * A wrong VIGIL_URL in CI: nothing listening there fails in seconds (not --queue-wait's ten minutes), and
 * another HTTP server (a web server's 404, an app answering every path) is named as not Vigil.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVigil } from '../helpers/process.js';

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

describe('vigil scan with a VIGIL_URL that is wrong', () => {
  let notFound: Awaited<ReturnType<typeof listen>>;
  let catchAll: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    notFound = await listen((_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found'));
    catchAll = await listen((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Shop</title>'));
  });
  afterAll(async () => {
    await new Promise((r) => notFound?.server.close(r));
    await new Promise((r) => catchAll?.server.close(r));
  });

  it('gives up on a server it never reached after seconds, not --queue-wait, and says what to check', async () => {
    const probe = createNetServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    const started = Date.now();
    const p = runVigil(['scan', 'https://api.example.com', '--queue-wait', '600'], { VIGIL_URL: `http://127.0.0.1:${port}`, VIGIL_API_KEY: 'svc_pk_test' });
    const code = await p.exited;
    const seconds = (Date.now() - started) / 1000;
    expect(code, p.output()).toBe(2);
    expect(p.output()).toMatch(
      /CONNECTION_FAILED: cannot reach http:\/\/127\.0\.0\.1:\d+\/api\/v1.*never reached in \d+ s: is VIGIL_URL right, and the server up\?/,
    );
    // The 15 s a never-reached server is given, far from the 600 s of --queue-wait (generous for a loaded machine).
    expect(seconds).toBeLessThan(200);
  }, 300_000);

  it('names another server as not Vigil, whether it answers 404 or 200 to everything (exit 3, a configuration error)', async () => {
    for (const other of [notFound, catchAll]) {
      const p = runVigil(['scan', 'https://api.example.com'], { VIGIL_URL: other.url, VIGIL_API_KEY: 'svc_pk_test' });
      const code = await p.exited;
      expect(code, p.output()).toBe(3);
      expect(p.output()).toContain('is VIGIL_URL a Vigil server?');
      expect(p.output()).not.toContain('HTTP_404');
    }
  }, 120_000);
});
