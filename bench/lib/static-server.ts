/**
 * Serves the real-world pages of bench/pages/ (see bench/pages/README.md) from loopback, each
 * template under its folder name: /sb-admin-2/index.html, /clean-blog/post.html...
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../pages/', import.meta.url));
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.jpg': 'image/jpeg',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

export interface StaticSite {
  url: string;
  close(): Promise<void>;
}

export async function startRealPages(): Promise<StaticSite> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(ROOT, path.endsWith('/') ? `${path}index.html` : path));
    const type = TYPES[extname(file)];
    if (!file.startsWith(ROOT) || !type) return void res.writeHead(404).end();
    readFile(file).then(
      (body) => res.writeHead(200, { 'content-type': type, 'cache-control': 'no-cache' }).end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
