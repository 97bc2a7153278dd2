/**
 * List-level BOLA: a collection read that lists one user's objects to another. Three shapes of the
 * same notes API: one that lists every user's notes to anyone signed in (while its item read refuses
 * other users' notes), its fixed twin that lists only the caller's own, and a public feed of
 * articles that anyone may read (the anonymous read answers the same): only the first is a finding.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineOutcome, Task } from '../../../src/domain/scan.js';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import { makeCtx } from './helpers.js';

type Variant = 'leaky' | 'fixed' | 'open';

/** A JWT-shaped token naming its user in `sub` (the target only compares the whole string). */
const token = (sub: number) =>
  [{ alg: 'HS256', typ: 'JWT' }, { sub: String(sub) }].map((part) => Buffer.from(JSON.stringify(part)).toString('base64url')).join('.') + '.c2ln';
const TOKENS: Record<string, number> = { [token(1)]: 1, [token(2)]: 2 };

const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const note = { type: 'object', properties: { id: { type: 'integer' }, ownerId: { type: 'integer' }, text: { type: 'string' } } };
const article = { type: 'object', properties: { id: { type: 'integer' }, authorId: { type: 'integer' }, title: { type: 'string' } } };
const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }];
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'notes', version: '1.0.0' },
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  security: [{ bearer: [] }],
  paths: {
    '/notes': {
      get: { responses: { '200': { description: 'notes', ...json({ type: 'array', items: note }) }, '401': { description: 'no' } } },
      post: {
        requestBody: { required: true, ...json({ type: 'object', required: ['text'], properties: { text: { type: 'string', maxLength: 200 } } }) },
        responses: { '201': { description: 'created', ...json(note) }, '401': { description: 'no' } },
      },
    },
    '/notes/{id}': { get: { parameters: id, responses: { '200': { description: 'note', ...json(note) }, '404': { description: 'missing' } } } },
    // Declared secured, but anyone may read the feed: signed in or not, the same articles.
    '/articles': { get: { responses: { '200': { description: 'articles', ...json({ type: 'array', items: article }) } } } },
    '/articles/{id}': { get: { parameters: id, responses: { '200': { description: 'article', ...json(article) } } } },
  },
};

type Note = { id: number; ownerId: number; text: string };
const NOTES: Note[] = [
  { id: 11, ownerId: 1, text: "the first user's private note" },
  { id: 12, ownerId: 2, text: "the second user's private note" },
];
const ARTICLES = [
  { id: 21, authorId: 1, title: 'Published by the first user' },
  { id: 22, authorId: 2, title: 'Published by the second user' },
];

function handle(variant: Variant, notes: Note[], body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse) {
  const reply = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  const user = TOKENS[(req.headers.authorization ?? '').replace(/^Bearer /, '')];
  if (req.method === 'POST' && path === '/notes') {
    if (!user) return reply(401, { error: 'sign in' });
    const text = typeof body.text === 'string' ? body.text.slice(0, 200) : '';
    const created = { id: notes.length + 11, ownerId: user, text };
    notes.push(created);
    return reply(201, created);
  }
  if (req.method !== 'GET') return reply(405, { error: 'method not allowed' });
  if (path === '/articles') return reply(200, ARTICLES);
  const a = /^\/articles\/(\d+)$/.exec(path);
  if (a) {
    const found = ARTICLES.find((x) => x.id === Number(a[1]));
    return found ? reply(200, found) : reply(404, { error: 'no such article' });
  }
  if (!user) return reply(401, { error: 'sign in' });
  // The flaw: the list forgets the owner filter its item read has.
  if (path === '/notes') return reply(200, variant === 'fixed' ? notes.filter((n) => n.ownerId === user) : notes);
  const n = /^\/notes\/(\d+)$/.exec(path);
  if (n) {
    // `open`: the item read forgets the owner check too (json-server-auth's 640 guard).
    const found = notes.find((x) => x.id === Number(n[1]) && (variant === 'open' || x.ownerId === user));
    return found ? reply(200, found) : reply(404, { error: 'no such note' });
  }
  return reply(404, { error: 'not found' });
}

const servers: Server[] = [];
const tasks: Record<Variant, Task[]> = { leaky: [], fixed: [], open: [] };
const outcomes: Partial<Record<Variant, EngineOutcome>> = {};

beforeAll(async () => {
  const engine = createSecurityEngine({ tuning: { onlyChecks: ['bola'] } });
  for (const variant of ['leaky', 'fixed', 'open'] as const) {
    const notes = NOTES.map((n) => ({ ...n }));
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => {
        raw += c;
      });
      req.on('end', () => {
        let body: Record<string, unknown> = {};
        try {
          body = raw ? JSON.parse(raw) : {};
        } catch {}
        handle(variant, notes, body, req, res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const auth = { type: 'bearer' as const, token: token(1), secondary: { type: 'bearer' as const, token: token(2) } };
    outcomes[variant] = await engine.run(makeCtx({ url, spec_text: JSON.stringify(SPEC), auth }));
    tasks[variant] = outcomes[variant]!.tasks;
  }
});

afterAll(async () => {
  for (const s of servers)
    await new Promise((r) => {
      s.closeAllConnections();
      s.close(r);
    });
});

const listTask = (variant: Variant, endpoint: string) =>
  tasks[variant].filter((t) => t.check === 'bola' && t.endpoint === endpoint && /listed to another/.test(t.name));

describe('list-level BOLA', () => {
  it("a list that shows the first identity's notes to the second, while the item read refuses them, is a high finding", () => {
    const [t] = listTask('leaky', 'GET /notes');
    expect(t?.status).toBe('failed');
    expect(t.severity).toBe('high');
    expect(t.evidence).toMatch(/its ownerId is the first identity's \(1\)/);
    expect(t.evidence).toMatch(/GET \/notes\/\{id\} refuses the second identity that item \(HTTP 404\)/);
  });

  it("an item read that shows the first identity's note to the second is a finding, though the list shows it too: a list that leaks is no public content", () => {
    const [read] = tasks.open.filter((t) => t.check === 'bola' && t.endpoint === 'GET /notes/{id}' && /readable by another/.test(t.name));
    expect(read?.status, JSON.stringify(outcomes.open!.security!.coverage.checks.find((c) => c.check === 'bola')?.not_run)).toBe('failed');
    expect(read.severity).toBe('high');
    expect(tasks.leaky.filter((t) => t.check === 'bola' && t.endpoint === 'GET /notes/{id}').map((t) => t.status)).toEqual(['passed']);
  });

  it('the fixed twin, whose list filters by owner, passes', () => {
    expect(listTask('fixed', 'GET /notes').map((t) => t.status)).toEqual(['passed']);
  });

  it('a public list (the anonymous read answers the same) is no finding', () => {
    for (const variant of ['leaky', 'fixed'] as const) {
      expect(listTask(variant, 'GET /articles')).toEqual([]);
      const bola = outcomes[variant]!.security!.coverage.checks.find((c) => c.check === 'bola');
      const publicList = bola?.not_run.find((n) => n.endpoints.includes('GET /articles'));
      expect(publicList?.reason).toBe('answers without credentials (public)');
    }
  });
});
