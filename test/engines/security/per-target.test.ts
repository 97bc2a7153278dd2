/**
 * Findings that are the same on every operation are one task per target listing exactly the
 * operations affected; a 5xx the spec declares is not a server-error finding (a stack trace is).
 *
 * The target is a small notes API written the way an Express app with a sub-router is: global
 * middleware (the hardened variant adds security headers and refuses TRACE everywhere), the notes
 * router leaking its framework version and echoing TRACE, a legacy DELETE left on note items that
 * the spec no longer documents, and report/export routes whose failures are partly documented.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import type { Task } from '../../../src/domain/scan.js';
import { makeCtx } from './helpers.js';

const SEED_NOTES = [
  { id: 'n-17', title: 'groceries' },
  { id: 'n-18', title: 'ideas' },
];

const TRACEBACK =
  'Traceback (most recent call last):\n  File "/srv/app/reports.py", line 41, in legacy\n    total = rows[0]["sum"]\nIndexError: list index out of range';

const json = (schema: object = { type: 'object' }) => ({ content: { 'application/json': { schema } } });

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'notes', version: '2.1.0' },
  servers: [{ url: '/api' }],
  paths: {
    '/health': { get: { responses: { '200': { description: 'up', ...json() } } } },
    '/notes': {
      get: { responses: { '200': { description: 'notes', ...json({ type: 'array', items: { type: 'object' } }) } } },
      post: {
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', required: ['title'], properties: { title: { type: 'string' } } } } },
        },
        responses: { '201': { description: 'created', ...json() } },
      },
    },
    '/notes/{id}': {
      get: {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'note', ...json() }, '404': { description: 'missing', ...json() } },
      },
    },
    // A documented failure (exact code): not a finding.
    '/reports/{year}': {
      get: {
        parameters: [{ name: 'year', in: 'path', required: true, schema: { type: 'integer', example: 2024 } }],
        responses: { '200': { description: 'report', ...json() }, '500': { description: 'report generation failed', ...json() } },
      },
    },
    // A documented failure by range: not a finding either.
    '/queue': { get: { responses: { '200': { description: 'jobs', ...json() }, '5XX': { description: 'queue unavailable', ...json() } } } },
    // `default` documents no particular status: a 500 here is a finding.
    // It fails on every request (a `format` given or not): the finding is the valid request's, not the malformed input's.
    '/export': {
      get: {
        parameters: [{ name: 'format', in: 'query', required: true, schema: { type: 'string', enum: ['csv', 'json'] } }],
        responses: { '200': { description: 'csv', ...json() }, default: { description: 'error', ...json() } },
      },
    },
    // A product code the scan's samples cannot match; the validator crashes (500) on any code that does not match,
    // so the scan's own request is malformed input, not a valid request.
    '/imports': {
      post: {
        requestBody: {
          required: true,
          ...json({ type: 'object', required: ['code'], properties: { code: { type: 'string', pattern: '^[A-Z]{2}-\\d{6}$' } } }),
        },
        responses: { '201': { description: 'imported', ...json() }, '400': { description: 'bad code', ...json() } },
      },
    },
    // Documented 500, but it shows a stack trace: that is a finding.
    '/legacy': { get: { responses: { '200': { description: 'legacy', ...json() }, '500': { description: 'failed' } } } },
  },
};

const DOCUMENTED: Record<string, string[]> = Object.fromEntries(
  Object.entries(SPEC.paths).map(([p, item]) => [p, Object.keys(item).map((m) => m.toUpperCase())]),
);

type Variant = 'leaky' | 'hardened';

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json', ...headers });
  res.end(text);
}

function handle(variant: Variant, notes: { id: string; title: string }[], req: IncomingMessage, res: ServerResponse, raw: string) {
  const url = new URL(req.url ?? '/', 'http://notes');
  const method = req.method ?? 'GET';
  // Global middleware: the hardened app sets security headers on everything and refuses TRACE.
  if (variant === 'hardened') {
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('cache-control', 'no-store');
    if (method === 'TRACE') return reply(res, 405, { error: 'method not allowed' });
  }
  const m = /^\/api(\/.*)$/.exec(url.pathname);
  if (!m) return reply(res, 404, { error: 'not found' });
  const path = m[1];

  // The notes router: the leaky app's router adds a framework banner and echoes TRACE.
  if (path === '/notes' || path.startsWith('/notes/')) {
    if (variant === 'leaky') {
      res.setHeader('x-powered-by', 'Express 4.17.1');
      if (method === 'TRACE')
        return reply(
          res,
          200,
          `TRACE ${req.url}\r\n${Object.entries(req.headers)
            .map(([k, v]) => `${k}: ${v}`)
            .join('\r\n')}`,
          { 'content-type': 'message/http' },
        );
    }
    if (path === '/notes') {
      if (method === 'GET') return reply(res, 200, notes);
      if (method === 'POST') {
        let title: unknown;
        try {
          title = JSON.parse(raw).title;
        } catch {
          title = undefined;
        }
        if (typeof title !== 'string') return reply(res, 422, { error: 'title is required' });
        const note = { id: `n-${notes.length + 17}`, title };
        notes.push(note);
        return reply(res, 201, note, { location: `/api/notes/${note.id}` });
      }
      return reply(res, 405, { error: 'method not allowed' }, { allow: 'GET, POST' });
    }
    const note = notes.find((n) => `/notes/${n.id}` === path);
    if (!note) return reply(res, 404, { error: 'no such note' });
    if (method === 'GET') return reply(res, 200, note);
    // Legacy DELETE, left out of the spec: answers success (nothing is really removed, so the test stays deterministic).
    if (method === 'DELETE' && variant === 'leaky') return reply(res, 200, { deleted: note.id });
    return reply(res, 405, { error: 'method not allowed' }, { allow: 'GET' });
  }

  const documented = Object.entries(DOCUMENTED).find(([p]) => new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));
  if (documented && !documented[1].includes(method)) return reply(res, 405, { error: 'method not allowed' });
  if (path === '/health')
    return reply(res, 200, { ok: true }, variant === 'hardened' ? {} : { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
  if (/^\/reports\/[^/]+$/.test(path)) return reply(res, 500, { error: 'report generation failed' });
  if (path === '/queue') return reply(res, 503, { error: 'queue unavailable' });
  if (path === '/export') return reply(res, 500, { error: 'export failed' });
  if (path === '/imports') {
    let code: unknown;
    try {
      code = JSON.parse(raw).code;
    } catch {
      return reply(res, 400, { error: 'invalid JSON' });
    }
    // The crash: the code's parts are read from a match that did not happen.
    const parts = /^([A-Z]{2})-(\d{6})$/.exec(String(code));
    if (!parts) return reply(res, 500, { error: "TypeError: Cannot read properties of null (reading '1')" });
    return reply(res, 201, { country: parts[1], number: parts[2] });
  }
  if (path === '/legacy') return reply(res, 500, TRACEBACK);
  return reply(res, 404, { error: 'not found' });
}

async function start(variant: Variant): Promise<{ url: string; server: Server }> {
  const notes = SEED_NOTES.map((n) => ({ ...n }));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(variant, notes, req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const servers: Server[] = [];
const tasks: Record<Variant, Task[]> = { leaky: [], hardened: [] };

beforeAll(async () => {
  const engine = createSecurityEngine({ tuning: { onlyChecks: ['misconfiguration', 'http-methods', 'server-errors'] } });
  for (const variant of ['leaky', 'hardened'] as const) {
    const { url, server } = await start(variant);
    servers.push(server);
    tasks[variant] = (await engine.run(makeCtx({ url, spec_text: JSON.stringify(SPEC) }))).tasks;
  }
});

afterAll(async () => {
  for (const s of servers)
    await new Promise((r) => {
      s.closeAllConnections();
      s.close(r);
    });
});

const named = (variant: Variant, check: string, name: RegExp) => tasks[variant].filter((t) => t.check === check && name.test(t.name));

describe('per-target findings', () => {
  it.each([
    ['version-leaking headers', 'misconfiguration', /Version-leaking/, ['GET /notes', 'GET /notes/{id}']],
    // /health sets them itself; /reports, /queue, /export and /legacy answer errors, which are not judged.
    ['missing security headers', 'misconfiguration', /Security headers/, ['GET /notes', 'GET /notes/{id}']],
    // One entry per path: its first documented operation.
    ['TRACE', 'http-methods', /TRACE/, ['GET /notes', 'GET /notes/{id}']],
    ['undeclared methods', 'http-methods', /Undeclared write methods/, ['GET /notes/{id}']],
  ])('%s: one failed task listing exactly the affected operations', (_what, check, name, affected) => {
    const found = named('leaky', check, name);
    expect(found).toHaveLength(1);
    const [t] = found;
    expect(t.status).toBe('failed');
    expect(t.endpoints).toEqual(affected);
    // The endpoint is the first affected operation, whose request the evidence shows.
    expect(t.endpoint).toBe(affected[0]);
    expect(t.evidence).toContain(`Affected: ${affected.length} of`);
  });

  it('names the version banner of each affected operation in the evidence', () => {
    const [t] = named('leaky', 'misconfiguration', /Version-leaking/);
    expect(t.evidence).toContain('x-powered-by: Express 4.17.1');
    expect(t.evidence).toContain('/api/notes');
  });

  it('the undeclared method is named in the evidence', () => {
    const [t] = named('leaky', 'http-methods', /Undeclared write methods/);
    expect(t.evidence).toMatch(/DELETE is not declared for \/notes\/\{id\}/);
  });

  it('a target where nothing is affected gets one passed task per finding, naming no operation', () => {
    for (const [check, name] of [
      ['misconfiguration', /Version-leaking/],
      ['misconfiguration', /Security headers/],
      ['misconfiguration', /CORS allows arbitrary origins/],
      ['http-methods', /TRACE/],
      ['http-methods', /Undeclared write methods/],
    ] as const) {
      const found = named('hardened', check, name);
      expect(found, `${check} ${name}`).toHaveLength(1);
      expect(found[0].status).toBe('passed');
      expect(found[0].endpoint).toBeUndefined();
      expect(found[0].endpoints).toBeUndefined();
    }
  });
});

describe('declared statuses are not server-error findings', () => {
  const verdict = (endpoint: string, name: RegExp) => {
    const found = tasks.leaky.filter((t) => t.check === 'server-errors' && t.endpoint === endpoint && name.test(t.name));
    expect(found, `${endpoint} ${name}`).toHaveLength(1);
    return found[0].status;
  };

  // An operation that only ever answers 5xx was never reached: not a finding when declared, and not a pass either (not tested).
  const none = (endpoint: string) =>
    expect(tasks.leaky.filter((t) => t.check === 'server-errors' && t.endpoint === endpoint && t.status === 'failed' && !/Stack trace/.test(t.name))).toEqual(
      [],
    );
  const unreached = (endpoint: string) =>
    expect(tasks.leaky.filter((t) => t.check === 'server-errors' && t.endpoint === endpoint && t.status === 'passed')).toEqual([]);

  it('a 500 the operation declares is not a finding, on the valid request or on malformed input (and not a pass: not tested)', () => {
    none('GET /reports/{year}');
    unreached('GET /reports/{year}');
  });

  it('a 503 within a declared 5XX range is not a finding (and not a pass: not tested)', () => {
    none('GET /queue');
    unreached('GET /queue');
  });

  it('`default` does not declare a 500: that is a finding', () => {
    expect(verdict('GET /export', /valid request/)).toBe('failed');
  });

  it('an operation that fails on every request: the valid request is the finding, not its malformed inputs (the malformations did not cause it)', () => {
    expect(verdict('GET /export', /valid request/)).toBe('failed');
    expect(tasks.leaky.filter((t) => t.check === 'server-errors' && t.endpoint === 'GET /export' && /malformed input/.test(t.name))).toEqual([]);
  });

  it("a 5xx to the scan's own request the schema refuses is malformed input, not a server error on a valid request", () => {
    expect(tasks.leaky.filter((t) => t.check === 'server-errors' && t.endpoint === 'POST /imports' && /valid request/.test(t.name))).toEqual([]);
    const [t] = tasks.leaky.filter((x) => x.check === 'server-errors' && x.endpoint === 'POST /imports' && /malformed input/.test(x.name));
    expect(t?.status).toBe('failed');
  });

  it('a declared 500 that shows a stack trace is still a stack-trace finding', () => {
    none('GET /legacy');
    expect(verdict('GET /legacy', /Stack trace/)).toBe('failed');
    const [t] = tasks.leaky.filter((x) => x.check === 'server-errors' && x.endpoint === 'GET /legacy' && /Stack trace/.test(x.name));
    expect(t.evidence).toContain('Traceback (most recent call last)');
  });
});
