import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

/** Where `npm run build` (Vite) writes the dashboard: dist/web at the repository root (from src/http/routes or dist/http/routes alike). */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../../dist/web/', import.meta.url));

/** The path the dashboard is served under; its pages are `/app/scans/<id>`, `/app/billing`... */
export const DASHBOARD_PATH = '/app';

/**
 * The dashboard's Content-Security-Policy: only its own scripts and styles (no inline script or style element),
 * images from this server (screenshots are signed same-origin links) and blob: (exports), connections to this
 * server only (the API and /ws/live), no frames, no plugins, not framable.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

interface Asset {
  body: Buffer;
  gzip?: Buffer;
  type: string;
  etag: string;
  immutable: boolean;
}

/** Reads every built file once (a few hundred KB), with a gzip copy of the text ones. */
function loadAssets(dir: string): Map<string, Asset> | undefined {
  try {
    if (!statSync(join(dir, 'index.html')).isFile()) return undefined;
  } catch {
    return undefined;
  }
  const assets = new Map<string, Asset>();
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const body = readFileSync(path);
        const type = TYPES[extname(entry.name)] ?? 'application/octet-stream';
        const rel = relative(dir, path).split(sep).join('/');
        const compressible = /^(text\/|image\/svg|application\/(json|manifest))/.test(type) && body.length > 512;
        assets.set(rel, {
          body,
          gzip: compressible ? gzipSync(body, { level: 9 }) : undefined,
          type,
          etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
          // Vite names what it emits under assets/ by content hash: a changed file has a new name.
          immutable: rel.startsWith('assets/'),
        });
      }
    }
  };
  walk(dir);
  return assets;
}

function send(request: FastifyRequest, reply: FastifyReply, asset: Asset): FastifyReply {
  reply
    .header('Content-Type', asset.type)
    .header('Cache-Control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('ETag', asset.etag)
    .header('Vary', 'Accept-Encoding');
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  const acceptsGzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  if (asset.gzip && acceptsGzip) return reply.header('Content-Encoding', 'gzip').send(asset.gzip);
  return reply.send(asset.body);
}

/**
 * The web dashboard at /app (docs/dashboard.md): the static files Vite built into dist/web. Hashed assets
 * are cached for a year, everything else revalidated (no-cache); any other path under /app is a page of the
 * single-page app and gets index.html (deep links such as /app/scans/<id>). `/` leads to the dashboard.
 * Every answer carries the dashboard's strict CSP and the usual hardening headers.
 */
export async function dashboardRoutes(app: FastifyInstance, options: { dir?: string } = {}): Promise<void> {
  const dir = options.dir ?? DASHBOARD_DIR;
  let assets: Map<string, Asset> | undefined;
  const current = (): Map<string, Asset> => {
    // Loaded on first use; a server started before the build finds it once it exists.
    assets ??= loadAssets(dir);
    if (!assets) throw new ApiError(503, 'DASHBOARD_NOT_BUILT', 'The dashboard has not been built: run `npm run build`');
    return assets;
  };

  const serve = async (request: FastifyRequest<{ Params: { '*'?: string } }>, reply: FastifyReply) => {
    reply
      .header('Content-Security-Policy', DASHBOARD_CSP)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      .header('X-Frame-Options', 'DENY')
      .header('Cross-Origin-Opener-Policy', 'same-origin')
      .header('Permissions-Policy', 'camera=(), microphone=(), geolocation=()');
    const files = current();
    const path = (request.params['*'] ?? '').replace(/^\/+/, '');
    const asset = path === '' ? undefined : files.get(path);
    if (asset && path !== 'index.html') return send(request, reply, asset);
    // A missing hashed asset is a 404 (an old page asking for a file a new build replaced), not the app.
    if (path.startsWith('assets/')) throw new ApiError(404, 'NOT_FOUND', `No dashboard file ${path}`);
    return send(request, reply, files.get('index.html')!);
  };

  const hidden = { schema: { hide: true }, config: { public: true } };
  app.get('/', hidden, async (_request, reply) => reply.redirect(`${DASHBOARD_PATH}/`, 302));
  app.get(DASHBOARD_PATH, hidden, async (_request, reply) => reply.redirect(`${DASHBOARD_PATH}/`, 301));
  app.get(`${DASHBOARD_PATH}/*`, hidden, serve);
}
