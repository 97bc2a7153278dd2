/**
 * What a create sent is the scan's own only where the answer agrees: Django REST framework's
 * schemas let the scan send `"id": 1` (read-only, ignored), the target answers `"id": 2`. Filed as
 * the first identity's own, the 1 sent every later update of that identity to record 1: another
 * user's, refused, so the update was never reached (the DRF tutorial's twin, 2 runs in 3).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineOutcome } from '../../../src/domain/scan.js';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import { agreedWith } from '../../../src/engines/security/moves.js';
import { makeCtx } from './helpers.js';

const TOKENS: Record<string, string> = { 'token-alice': 'alice', 'token-bob': 'bob' };
const item = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string', maxLength: 100 }, owner: { type: 'string' } } };
const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }];
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'items', version: '1' },
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  security: [{ bearer: [] }],
  paths: {
    '/items': {
      post: {
        // The id is declared without readOnly, as generated schemas often do: the scan sends one.
        requestBody: {
          required: true,
          ...json({ type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string', maxLength: 100 } } }),
        },
        responses: { '201': { description: 'created', ...json(item) } },
      },
    },
    '/items/{id}': {
      get: { parameters: id, responses: { '200': { description: 'an item', ...json(item) }, '404': { description: 'no' } } },
      put: {
        parameters: id,
        requestBody: { required: true, ...json({ type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 100 } } }) },
        responses: { '200': { description: 'updated', ...json(item) }, '403': { description: 'not yours' }, '404': { description: 'no' } },
      },
    },
  },
};

let server: Server;
let outcome: EngineOutcome;
const puts: { user: string; id: number; status: number }[] = [];

beforeAll(async () => {
  // Record 1 is bob's, made before the scan: the id the scan's create bodies carry.
  const items = [{ id: 1, name: "bob's", owner: 'bob' }];
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c;
    });
    req.on('end', () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const user = TOKENS[(req.headers.authorization ?? '').replace(/^Bearer /, '')];
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (!user) return reply(401, { detail: 'sign in' });
      let body: Record<string, unknown> = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        return reply(400, { detail: 'bad json' });
      }
      if (req.method === 'POST' && path === '/items') {
        if (typeof body.name !== 'string' || body.name.length > 100) return reply(400, { name: ['required'] });
        // The sent id is read-only: ignored, the next one is given.
        const created = { id: items.length + 1, name: body.name, owner: user };
        items.push(created);
        return reply(201, created);
      }
      const m = /^\/items\/(\d+)$/.exec(path);
      const found = m ? items.find((x) => x.id === Number(m[1])) : undefined;
      if (!m) return reply(404, { detail: 'not found' });
      if (!found) return reply(404, { detail: 'no such item' });
      if (req.method === 'GET') return reply(200, found);
      if (req.method === 'PUT') {
        const status = found.owner !== user ? 403 : typeof body.name !== 'string' || body.name.length > 100 ? 400 : 200;
        puts.push({ user, id: found.id, status });
        if (status === 200) found.name = body.name as string;
        return status === 200
          ? reply(200, found)
          : reply(status, { detail: status === 403 ? 'You do not have permission to perform this action.' : 'invalid' });
      }
      return reply(405, { detail: 'method not allowed' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const auth = { type: 'bearer' as const, token: 'token-alice', secondary: { type: 'bearer' as const, token: 'token-bob' } };
  outcome = await createSecurityEngine({ tuning: { onlyChecks: ['bola'] } }).run(makeCtx({ url, spec_text: JSON.stringify(SPEC), auth }));
}, 120_000);

afterAll(async () => {
  await new Promise((r) => server?.close(r));
});

describe('values a create sent that its answer replaced', () => {
  it("are not the scan's own: the first identity updates the record it created, not the one its body named", () => {
    const update = outcome.security!.coverage.operations.find((o) => o.endpoint === 'PUT /items/{id}');
    expect(update?.reached_2xx.primary, JSON.stringify(puts)).toBe(true);
    // Record 1 is bob's: nothing the scan sends as alice treats it as hers.
    expect(puts.filter((p) => p.user === 'alice' && p.id === 1)).toEqual([]);
  });

  it('keeps what the answer does not contradict', () => {
    expect(agreedWith({ id: 1, url: 'https://example.com/resource', title: 'mine' }, { id: 2, url: 'http://t/snippets/2/', title: 'mine' })).toEqual({
      title: 'mine',
    });
    expect(agreedWith({ article: { id: 1, title: 'mine' } }, { article: { id: 7, title: 'mine' } })).toEqual({ article: { title: 'mine' } });
    expect(agreedWith({ id: 1, title: 'mine' }, undefined)).toEqual({ id: 1, title: 'mine' });
  });
});
