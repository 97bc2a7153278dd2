/**
 * Inventory under the API's own prefix: well-known debug paths under the base path (not only the
 * root), and sibling versions of documented paths (/api/v1/... next to the documented /api/v2/...),
 * compared with the documented one. The target is written like an Express app that mounted its v2
 * router under /api and forgot the v1 router (which has no authentication middleware); its fixed twin
 * removed both.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import type { Task } from '../../../src/domain/scan.js';
import { makeCtx } from './helpers.js';

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'shop', version: '2.0.0' },
  servers: [{ url: '/api' }],
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  security: [{ bearer: [] }],
  paths: {
    '/v2/users': { get: { responses: { '200': { description: 'users' }, '401': { description: 'no' } } } },
    '/v2/users/{id}': {
      get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }], responses: { '200': { description: 'user' } } },
    },
  },
};

const USERS = [{ id: 1, name: 'ann', email: 'ann@shop.test' }];

function app(vulnerable: boolean): Server {
  return createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/openapi.json') return send(200, SPEC);
    if (url.pathname === '/api/v2/users') return req.headers.authorization === 'Bearer good-token' ? send(200, USERS) : send(401, { error: 'unauthorized' });
    if (url.pathname.startsWith('/api/v2/users/'))
      return req.headers.authorization === 'Bearer good-token' ? send(200, USERS[0]) : send(401, { error: 'unauthorized' });
    if (vulnerable && url.pathname === '/api/v1/users') return send(200, USERS);
    if (vulnerable && url.pathname === '/api/debug') return send(200, { debug: true, config: { db: 'postgres://shop@db/shop' } });
    return send(404, { error: 'not found' });
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function inventoryTasks(url: string): Promise<Task[]> {
  const out = await createSecurityEngine({ tuning: { onlyChecks: ['inventory'] } }).run(
    makeCtx({ url, spec_url: `${url}/openapi.json`, auth: { type: 'bearer', token: 'good-token' } as never, options: { concurrency: 2 } as never }),
  );
  return out.tasks.filter((t) => t.check === 'inventory');
}

describe('inventory under the API prefix and sibling versions', () => {
  const servers: Server[] = [];
  let vulnerable: Task[];
  let fixed: Task[];

  beforeAll(async () => {
    const [v, f] = [app(true), app(false)];
    servers.push(v, f);
    [vulnerable, fixed] = await Promise.all([inventoryTasks(await listen(v)), inventoryTasks(await listen(f))]);
  });
  afterAll(() => {
    for (const s of servers) s.close();
  });

  it('reports the older version that skips authentication as high, with the comparison as evidence', () => {
    const old = vulnerable.find((t) => t.endpoint === 'GET /api/v1/users');
    expect(old?.status).toBe('failed');
    expect(old?.severity).toBe('high');
    expect(old?.evidence).toMatch(/\/api\/v1\/users answers 200 without credentials, where the documented \/api\/v2\/users answers 401/);
  });

  it('probes well-known paths under the base path, not only at the root', () => {
    expect(vulnerable.find((t) => t.endpoint === 'GET /api/debug')?.status).toBe('failed');
    expect(vulnerable.find((t) => t.endpoint === 'GET /debug')?.status).toBe('passed');
  });

  it('the fixed twin has no inventory finding', () => {
    expect(fixed.filter((t) => t.status === 'failed')).toEqual([]);
    expect(fixed.find((t) => t.endpoint === 'GET /api/v1/users')?.status).toBe('passed');
  });
});
