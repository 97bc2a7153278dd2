/**
 * Target credentials in functional scans: the pages are loaded with the same headers the security
 * engine sends (engines/credentials.ts), OAuth2 client credentials included.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redactor } from '../../../src/domain/redaction.js';
import type { TargetAuth } from '../../../src/domain/scan.js';
import { staticAuthHeaders } from '../../../src/engines/credentials.js';
import { createFunctionalEngine } from '../../../src/engines/functional/index.js';
import { functionalContext } from '../../helpers/functional-engine.js';

const CLIENT = { id: 'vigil-client', secret: 'client-secret-1234' };
const BASIC = { username: 'alice', password: 'wonder land' };
const PAGE = '<!doctype html><html lang="en"><head><title>Private</title></head><body><main><h1>Members only</h1><p>Hello.</p></main></body></html>';

/** A site whose pages answer 401 without the right credentials, and an OAuth2 token endpoint. */
interface ProtectedSite {
  url: string;
  server: Server;
  /** Access tokens the token endpoint issued, in order. */
  issued: string[];
  /** Authorization headers the pages received. */
  seen: Map<string, string[]>;
}

function basicOf(req: IncomingMessage): [string, string] | undefined {
  const m = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
  if (!m) return undefined;
  const text = Buffer.from(m[1], 'base64').toString();
  const i = text.indexOf(':');
  return [text.slice(0, i), text.slice(i + 1)];
}

async function startProtectedSite(): Promise<ProtectedSite> {
  const issued: string[] = [];
  const seen = new Map<string, string[]>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'POST' && path === '/oauth/token') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        const [id, secret] = (basicOf(req) ?? []).map((v) => decodeURIComponent(v));
        const form = new URLSearchParams(body);
        if (id !== CLIENT.id || secret !== CLIENT.secret || form.get('grant_type') !== 'client_credentials') {
          res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
          return;
        }
        const token = `tok-${randomBytes(12).toString('hex')}`;
        issued.push(token);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600 }));
      });
      return;
    }
    const auth = req.headers.authorization ?? '';
    seen.set(path, [...(seen.get(path) ?? []), auth]);
    const basic = basicOf(req);
    const allowed =
      (path === '/oauth-page' && issued.length > 0 && auth === `Bearer ${issued.at(-1)}`) ||
      (path === '/basic-page' && basic?.[0] === BASIC.username && basic[1] === BASIC.password);
    if (!allowed) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, issued, seen };
}

const engine = createFunctionalEngine();
let site: ProtectedSite;
beforeAll(async () => {
  site = await startProtectedSite();
});
afterAll(async () => {
  await engine.close();
  site.server.closeAllConnections();
  await new Promise((r) => site.server.close(r));
});

const oauth = (secret = CLIENT.secret): TargetAuth => ({
  type: 'oauth2',
  oauth2_token_url: `${site.url}/oauth/token`,
  oauth2_client_id: CLIENT.id,
  oauth2_client_secret: secret,
});

describe('target credentials as request headers', () => {
  it('bearer, API key header and basic give the same headers to both engines', () => {
    expect(staticAuthHeaders({ type: 'bearer', token: 't0k' })).toEqual({ authorization: 'Bearer t0k' });
    expect(staticAuthHeaders({ type: 'header', header_name: 'X-Api-Key', header_value: 'k1' })).toEqual({ 'x-api-key': 'k1' });
    expect(staticAuthHeaders({ type: 'basic', username: 'alice', password: 'pw' })).toEqual({
      authorization: `Basic ${Buffer.from('alice:pw').toString('base64')}`,
    });
    expect(staticAuthHeaders({ type: 'oauth2' })).toEqual({});
  });
});

describe('functional scans with target credentials', () => {
  it('fetches an OAuth2 token once and loads the page with it as a bearer token', async () => {
    const redactor = new Redactor();
    const out = await engine.run(functionalContext({ url: site.url, auth: oauth(), options: { pages: ['/oauth-page'] } }, { redactor }));
    expect(site.issued).toHaveLength(1);
    const token = site.issued[0];
    expect(site.seen.get('/oauth-page')).toEqual([`Bearer ${token}`]);
    expect(out.tasks.map((t) => [t.name, t.status])).toEqual([
      ['Performance: /oauth-page', 'passed'],
      ['Accessibility (wcag21aa): /oauth-page', 'passed'],
      ['Visual regression: /oauth-page', 'passed'],
    ]);
    // The fetched token is a secret of the scan from then on.
    expect(redactor.redact(`token ${token}`)).not.toContain(token);
  }, 60_000);

  it('fails the scan with AUTH_FAILED when the token endpoint refuses the client, before loading a page', async () => {
    const before = site.seen.get('/oauth-page')?.length ?? 0;
    await expect(engine.run(functionalContext({ url: site.url, auth: oauth('wrong-secret'), options: { pages: ['/oauth-page'] } }))).rejects.toMatchObject({
      code: 'AUTH_FAILED',
    });
    expect(site.seen.get('/oauth-page')?.length ?? 0).toBe(before);
  }, 60_000);

  it('sends basic credentials with the first request of a page', async () => {
    const out = await engine.run(functionalContext({ url: site.url, auth: { type: 'basic', ...BASIC }, options: { pages: ['/basic-page'] } }));
    expect(site.seen.get('/basic-page')).toEqual([`Basic ${Buffer.from(`${BASIC.username}:${BASIC.password}`).toString('base64')}`]);
    expect(out.tasks.every((t) => t.status === 'passed')).toBe(true);
  }, 60_000);
});
