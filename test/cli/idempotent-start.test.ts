/**
 * `vigil scan` sends one Idempotency-Key per run and retries a start whose answer was lost with the same
 * key: the server admitted the scan once, and the retry gets that scan, not a second (charged) one.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVigil } from '../helpers/process.js';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';

describe(`vigil scan retries a lost start safely (${storeLabel})`, () => {
  let server: TestServer;
  let proxy: Server;
  let proxyUrl: string;
  const startKeys: string[] = [];

  beforeAll(async () => {
    server = await startServer();
    const origin = new URL(server.api).origin;
    // Forwards everything; the first POST /scan reaches the server, then its answer is dropped (socket destroyed).
    proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const isStart = req.method === 'POST' && req.url === '/api/v1/scan';
        if (isStart) startKeys.push(String(req.headers['idempotency-key'] ?? ''));
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<
          string,
          string
        >;
        const answer = await fetch(origin + req.url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
        const text = await answer.text();
        if (isStart && startKeys.length === 1) return req.socket.destroy();
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(text);
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    proxy?.close();
    await server?.stop();
  });

  it('sends the same key on the retry and is charged once', async () => {
    const { apiKey } = await server.createTenant('enterprise');
    const p = runVigil(['scan', 'http://target.test/app', '--mode', 'functional', '--no-wait'], { VIGIL_URL: proxyUrl, VIGIL_API_KEY: apiKey });
    expect(await p.exited, p.output()).toBe(0);
    expect(startKeys).toHaveLength(2);
    expect(startKeys[0]).toMatch(/^vigil-cli-[0-9a-f-]{36}$/);
    expect(startKeys[1]).toBe(startKeys[0]);
    const usage = await call(`${server.api}/usage`, { headers: { 'X-API-Key': apiKey } });
    expect(usage.body.scans_used).toBe(1);
    const list = await call(`${server.api}/scans`, { headers: { 'X-API-Key': apiKey } });
    expect(list.body.total ?? list.body.scans?.length).toBe(1);
  });
});
