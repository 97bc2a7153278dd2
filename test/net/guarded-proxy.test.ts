import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { request as httpRequest } from 'node:http';
import { startGuardedProxy, type GuardedProxy } from '../../src/net/guarded-proxy.js';
import { resolveChromium } from '../../src/engines/functional/browser.js';

/** A plain-http request in absolute form, as browsers send through an http proxy. */
function getThrough(proxyUrl: string, url: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: Number(port), path: url, headers: { host: new URL(url).host } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sends CONNECT host:port through the proxy, then (when tunnelled) a GET over the tunnel. */
function connectThrough(proxyUrl: string, authority: string): Promise<{ status: number; tunnelled: string }> {
  const { port } = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let data = '';
    let status = 0;
    socket.on('data', (chunk) => {
      data += chunk.toString();
      if (!status && data.includes('\r\n\r\n')) {
        status = Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1]);
        data = '';
        if (status === 200) socket.write(`GET /hello HTTP/1.1\r\nhost: ${authority}\r\nconnection: close\r\n\r\n`);
      }
    });
    socket.on('end', () => resolve({ status, tunnelled: data }));
    socket.on('error', reject);
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n\r\n`);
  });
}

describe('guarded proxy (hosted functional scans)', () => {
  let target: Server;
  let port: number;
  let hits = 0;
  let guarded: GuardedProxy;
  let open: GuardedProxy;

  beforeAll(async () => {
    target = createServer((_req, res) => {
      hits += 1;
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>internal</title><h1>internal admin</h1>');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    port = (target.address() as AddressInfo).port;
    guarded = await startGuardedProxy();
    open = await startGuardedProxy({ allowPrivate: true });
  });
  afterAll(async () => {
    await guarded.close();
    await open.close();
    await new Promise((r) => target.close(r));
  });

  it('refuses plain http to loopback, by literal address and by name', async () => {
    const before = hits;
    for (const host of ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]']) {
      const res = await getThrough(guarded.url, `http://${host}:${port}/`);
      expect(res.status, host).toBe(403);
      expect(res.body).toMatch(/not public/);
    }
    expect(hits).toBe(before);
    expect(guarded.refused).toBeGreaterThanOrEqual(3);
  });

  it('refuses CONNECT tunnels to loopback and metadata addresses', async () => {
    const before = hits;
    expect((await connectThrough(guarded.url, `127.0.0.1:${port}`)).status).toBe(403);
    expect((await connectThrough(guarded.url, `localhost:${port}`)).status).toBe(403);
    expect((await connectThrough(guarded.url, '169.254.169.254:80')).status).toBe(403);
    expect(hits).toBe(before);
  });

  it('forwards both ways when private addresses are allowed (the self-hosted setting)', async () => {
    const res = await getThrough(open.url, `http://127.0.0.1:${port}/`);
    expect(res.status).toBe(200);
    expect(res.body).toContain('internal admin');
    const tunnel = await connectThrough(open.url, `127.0.0.1:${port}`);
    expect(tunnel.status).toBe(200);
    expect(tunnel.tunnelled).toContain('internal admin');
  });

  it('Chromium sends loopback traffic through the proxy, so a hosted page cannot reach the hosting network', async () => {
    const browser = await chromium.launch({ executablePath: resolveChromium() });
    try {
      const before = hits;
      const blocked = await browser.newContext({ proxy: { server: guarded.url } });
      const page = await blocked.newPage();
      const response = await page.goto(`http://127.0.0.1:${port}/`).catch(() => null);
      expect(response?.status() ?? 403).toBe(403);
      expect(await page.content()).not.toContain('internal admin');
      // A page that fetches an internal address from script gets nothing either.
      const fetched = await page.evaluate(
        async (url) =>
          fetch(url).then(
            (r) => r.status,
            () => 0,
          ),
        `http://localhost:${port}/`,
      );
      expect(fetched === 0 || fetched === 403).toBe(true);
      expect(hits).toBe(before);
      await blocked.close();

      const allowed = await browser.newContext({ proxy: { server: open.url } });
      const ok = await (await allowed.newPage()).goto(`http://127.0.0.1:${port}/`);
      expect(ok?.status()).toBe(200);
      expect(hits).toBeGreaterThan(before); // the page, and possibly its favicon
      await allowed.close();
    } finally {
      await browser.close();
    }
  });
});
