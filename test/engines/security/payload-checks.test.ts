/** Injection, SSRF, redirect and resource checks: what they say about themselves, where they apply, and the value a payload is built on. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import { makeCtx } from './helpers.js';
import type { Operation, OperationCheck, ParamSpec, RequestSpec } from '../../../src/engines/security/types.js';
import { injectionPoints } from '../../../src/engines/security/synth.js';
import { pathParam, pointValue } from '../../../src/engines/security/checks/payload-check.js';
import { sqlInjection } from '../../../src/engines/security/checks/sql-injection.js';
import { nosqlInjection } from '../../../src/engines/security/checks/nosql-injection.js';
import { timeInjection } from '../../../src/engines/security/checks/time-injection.js';
import { pathTraversal } from '../../../src/engines/security/checks/path-traversal.js';
import { ssti } from '../../../src/engines/security/checks/ssti.js';
import { xss } from '../../../src/engines/security/checks/xss.js';
import { ssrf } from '../../../src/engines/security/checks/ssrf.js';
import { openRedirect } from '../../../src/engines/security/checks/open-redirect.js';
import { resourceConsumption } from '../../../src/engines/security/checks/resource-consumption.js';

const CHECKS: OperationCheck[] = [sqlInjection, nosqlInjection, timeInjection, pathTraversal, ssti, xss, ssrf, openRedirect, resourceConsumption];

function operation(method: string, path: string, params: ParamSpec[], body?: Operation['body']): Operation {
  return { key: `${method} ${path}`, method, path, tags: [], params, body, responses: {}, secured: false, publicByDesign: false, links: [], extensions: {} };
}
const param = (name: string, at: ParamSpec['in'], schema: ParamSpec['schema'] = { type: 'string' }): ParamSpec => ({ name, in: at, required: true, schema });

describe('check metadata', () => {
  it.each(CHECKS.map((c) => [c.id, c] as const))('%s explains itself', (_id, c) => {
    expect(c.scope).toBe('operation');
    expect(c.title.length).toBeGreaterThan(3);
    for (const text of [c.description, c.risk, c.remediation]) expect(text?.length ?? 0).toBeGreaterThan(40);
    expect(c.owasp).toMatch(/^API(10|[1-9]):2023$/);
    expect(c.cwe).toMatch(/^CWE-\d+$/);
    expect(c.references?.length).toBeGreaterThan(0);
    for (const r of c.references ?? []) expect(r.url).toMatch(/^https:\/\/(cheatsheetseries\.owasp\.org|owasp\.org|portswigger\.net)\//);
  });

  it('flags exactly the checks that measure time', () => {
    expect(CHECKS.filter((c) => c.timing).map((c) => c.id)).toEqual(['time-injection', 'resource-consumption']);
  });

  it('maps each to its OWASP risk and weakness', () => {
    const ids = Object.fromEntries(CHECKS.map((c) => [c.id, `${c.owasp} ${c.cwe}`]));
    expect(ids).toMatchObject({
      ssrf: 'API7:2023 CWE-918',
      'resource-consumption': 'API4:2023 CWE-770',
      'sql-injection': 'API8:2023 CWE-89',
      'open-redirect': 'API8:2023 CWE-601',
    });
  });
});

describe('where the checks apply', () => {
  const jsonBody = (properties: Record<string, unknown>): Operation['body'] => ({
    contentType: 'application/json',
    required: true,
    schema: { type: 'object', properties },
  });
  const noInput = operation('GET', '/health', []);
  const numberOnly = operation('GET', '/items', [param('page', 'query', { type: 'integer', example: 2 })]);
  const redirect = operation('GET', '/login', [param('next', 'query', { type: 'string', example: '/home' })]);
  const webhook = operation('POST', '/hooks', [], jsonBody({ image_url: { type: 'string', format: 'uri' } }));
  // The engine calls applies(op, ctx); these checks only look at the operation.
  const applies = (c: OperationCheck, op: Operation) => c.applies?.(op, undefined as never);

  it('gives a reason when an operation has nothing to test', () => {
    for (const c of CHECKS) {
      const verdict = applies(c, noInput);
      expect(typeof verdict, c.id).toBe('string');
      expect((verdict as string).length, c.id).toBeGreaterThan(5);
    }
    expect(applies(xss, numberOnly)).toBe('no string parameter or body field');
    expect(applies(sqlInjection, numberOnly)).toBe(true);
    expect(applies(nosqlInjection, redirect)).toBe('no JSON body field');
    expect(applies(nosqlInjection, webhook)).toBe(true);
    expect(applies(openRedirect, redirect)).toBe(true);
    expect(applies(openRedirect, webhook)).toBe('no redirect-like parameter');
    expect(applies(ssrf, webhook)).toBe(true);
    expect(applies(ssrf, numberOnly)).toBe('no URL-like parameter or body field');
  });
});

describe('the value a payload is built on', () => {
  it('reads a path parameter out of the concrete path', () => {
    expect(pathParam('/users/{userId}/orders/{orderId}', '/users/u-7/orders/1001', 'orderId')).toBe('1001');
    expect(pathParam('/users/{userId}/orders/{orderId}', '/users/u-7/orders/1001', 'userId')).toBe('u-7');
    expect(pathParam('/books/{book_title}', '/books/The%20Hobbit', 'book_title')).toBe('The Hobbit');
    expect(pathParam('/v1.0/{id}', '/v1x0/5', 'id')).toBeUndefined();
    expect(pathParam('/files/{name}.json', '/files/report.json', 'name')).toBe('report');
    expect(pathParam('/users/{id}', '/users/5', 'other')).toBeUndefined();
  });

  it('prefers what the request carries (a harvested id) over the spec value', () => {
    const op = operation('GET', '/orders/{orderId}', [
      param('orderId', 'path', { type: 'string', example: 'example-id' }),
      param('q', 'query', { type: 'string', example: 'shoes' }),
    ]);
    const [path, query] = injectionPoints(op);
    const req: RequestSpec = { method: 'GET', path: '/orders/1001', query: [['q', 'boots']], headers: {} };
    expect(path.value).toBe('example-id');
    expect(pointValue(req, op, path)).toBe('1001');
    expect(pointValue(req, op, query)).toBe('boots');
    expect(pointValue({ ...req, query: [] }, op, query)).toBe('shoes');
  });
});

describe('probes reach the code behind real resources', () => {
  // A small API whose SQL is only reached for a user that exists, and for a project name not taken
  // (the spec's example name is): probes built from the spec's values alone would see 404 and 409.
  const oddQuotes = (v: unknown) => typeof v === 'string' && (v.split("'").length - 1) % 2 === 1;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const u = new URL(req.url ?? '/', 'http://x');
        const reply = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        const sqlError = () => res.writeHead(500, { 'content-type': 'text/plain' }).end('SQLITE_ERROR: unrecognized token: "\'"');
        if (req.method === 'GET' && u.pathname === '/users') return reply(200, [{ username: 'carol' }]);
        const posts = /^\/users\/([^/]+)\/posts$/.exec(u.pathname);
        if (req.method === 'GET' && posts) {
          if (decodeURIComponent(posts[1]) !== 'carol') return reply(404, { error: 'no such user' });
          return oddQuotes(u.searchParams.get('sort')) ? sqlError() : reply(200, []);
        }
        if (req.method === 'POST' && u.pathname === '/projects') {
          const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>;
          if (body.name === 'example-project') return reply(409, { error: 'name taken' });
          return oddQuotes(body.description) ? sqlError() : reply(201, { id: 1, ...body });
        }
        reply(404, { error: 'not found' });
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const spec = JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'users', version: '1' },
    paths: {
      '/users': { get: { responses: { '200': { description: 'users' } } } },
      '/users/{username}/posts': {
        get: {
          parameters: [
            { name: 'username', in: 'path', required: true, schema: { type: 'string', example: 'example-user' } },
            { name: 'sort', in: 'query', required: false, schema: { type: 'string', example: 'date' } },
          ],
          responses: { '200': { description: 'posts' } },
        },
      },
      '/projects': {
        post: {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { name: { type: 'string', example: 'example-project' }, description: { type: 'string', example: 'demo' } },
                },
              },
            },
          },
          responses: { '201': { description: 'created' } },
        },
      },
    },
  });

  it('finds SQL injection behind a harvested path id and in a create body with a fresh name', async () => {
    const out = await createSecurityEngine({ tuning: { onlyChecks: ['sql-injection'] } }).run(makeCtx({ url, spec_text: spec }));
    const failed = out.tasks.filter((t) => t.status === 'failed').map((t) => `${t.endpoint} ${t.name}`);
    expect(failed).toContain('GET /users/{username}/posts SQL injection (error-based) in query parameter sort');
    expect(failed).toContain('POST /projects SQL injection (error-based) in body field description');
    // The path parameter itself is carol's real name with a quote: the user lookup refuses it, no SQL error.
    expect(failed).not.toContain('GET /users/{username}/posts SQL injection (error-based) in path parameter username');
    expect(out.tasks.find((t) => t.name.endsWith('query parameter sort'))?.evidence).toContain('/users/carol/posts?sort=');
  });
});
