/**
 * The corpus's static server: every source under /<id>/, each page with its own response headers
 * (a strict CSP for one), absolute subresource URLs rewritten to /__external/... and answered 404
 * from loopback (nothing leaves the machine), and the prepared edits: while an edit is set, HTML
 * pages load /__corpus/edit.js?kind=<kind>, a same-origin script (so a strict CSP allows it) that
 * rewords, recolours or moves the page's first heading once the page has loaded.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { CACHE_DIR, CORPUS_DIR, type CorpusManifest, loadManifest, pagePath, sourceDir } from './manifest.js';

export type CorpusEdit = 'text' | 'colour' | 'layout';
export const EDITS: CorpusEdit[] = ['text', 'colour', 'layout'];

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.eot': 'application/vnd.ms-fontobject',
};

/** Subresource URLs on other hosts, in HTML tags other than links (<a>), become /__external/<host>/<path>. */
export function rewriteHtml(html: string): string {
  return html
    .replace(/<(?!a[\s>])[a-z][a-z0-9-]*\b[^>]*>/gi, (tag) =>
      tag.replace(/(\s(?:src|href|srcset|data-src)\s*=\s*["'])(?:https?:)?\/\/(?=[a-z0-9])/gi, '$1/__external/'),
    )
    .replace(/(url\(\s*["']?|@import\s+["'])(?:https?:)?\/\/(?=[a-z0-9])/gi, '$1/__external/');
}

export function rewriteCss(css: string): string {
  return css.replace(/(url\(\s*["']?|@import\s+["'])(?:https?:)?\/\/(?=[a-z0-9])/gi, '$1/__external/');
}

export interface CorpusServer {
  url: string;
  /** Sets (or clears, null) the edit every HTML page gets. */
  setEdit(edit: CorpusEdit | null): void;
  /** Requests answered 404 because they pointed off the machine, per page-less path prefix. */
  externalRequests(): number;
  close(): Promise<void>;
}

export async function startCorpusServer(opts: { manifest?: CorpusManifest; cacheDir?: string; port?: number } = {}): Promise<CorpusServer> {
  const manifest = opts.manifest ?? loadManifest();
  const roots = new Map(manifest.sources.map((s) => [s.id, sourceDir(s, opts.cacheDir ?? CACHE_DIR)]));
  const headers = new Map(manifest.pages.map((p) => [pagePath(p), p.headers ?? {}]));
  const editScript = await readFile(join(CORPUS_DIR, 'edit.js'), 'utf8');
  let edit: CorpusEdit | null = null;
  let external = 0;

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = decodeURIComponent(url.pathname);
    if (path === '/__corpus/edit' && req.method === 'POST') {
      const kind = url.searchParams.get('kind');
      edit = EDITS.includes(kind as CorpusEdit) ? (kind as CorpusEdit) : null;
      return void res.writeHead(204).end();
    }
    if (path === '/__corpus/external') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(String(external));
    if (path === '/__corpus/edit.js')
      return void res
        .writeHead(200, { 'content-type': TYPES['.js'], 'cache-control': 'no-store' })
        .end(editScript.replace('__KIND__', url.searchParams.get('kind') ?? ''));
    if (path.startsWith('/__external/')) {
      external++;
      return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not on this machine');
    }
    const [, id, ...rest] = path.split('/');
    const root = roots.get(id ?? '');
    if (!root) return void res.writeHead(404).end();
    const rel = rest.join('/');
    const file = normalize(join(root, rel === '' || rel.endsWith('/') ? `${rel}index.html` : rel));
    const type = TYPES[extname(file).toLowerCase()];
    if (!file.startsWith(root) || !type) return void res.writeHead(404).end();
    readFile(file).then(
      (body) => {
        const extra = headers.get(path) ?? {};
        let out: Buffer | string = body;
        if (type.startsWith('text/html')) {
          let html = rewriteHtml(body.toString('utf8'));
          if (edit) {
            const tag = `<script src="/__corpus/edit.js?kind=${edit}"></script>`;
            html = /<\/body>/i.test(html) ? html.replace(/<\/body>(?![\s\S]*<\/body>)/i, `${tag}</body>`) : html + tag;
          }
          out = html;
        } else if (type.startsWith('text/css')) out = rewriteCss(body.toString('utf8'));
        res.writeHead(200, { 'content-type': type, 'cache-control': 'no-cache', ...extra }).end(out);
      },
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setEdit: (e) => {
      edit = e;
    },
    externalRequests: () => external,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
