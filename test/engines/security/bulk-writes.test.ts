/**
 * Writes to a whole collection: `PATCH /tasks` updates every task, `DELETE /tasks` (served though not
 * declared) removes them all, and LoopBack-style `PATCH /notes?where={...}` updates the notes its filter
 * matches, all of them without one. A full scan must leave the target's own records as it found them:
 * the unfiltered write is withheld (not tested, saying why), the filtered one names a record the scan created.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineOutcome } from '../../../src/domain/scan.js';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import { makeCtx } from './helpers.js';

const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const item = { type: 'object', properties: { id: { type: 'integer' }, title: { type: 'string' } } };
const input = { type: 'object', required: ['title'], properties: { title: { type: 'string' } } };
const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }];
const where = [{ name: 'where', in: 'query', required: false, content: { 'application/json': { schema: { type: 'object' } } } }];

/** A collection of `name` with its item operations, and a bulk update with or without a `where` filter. */
function collection(name: string, filter: boolean) {
  return {
    [`/${name}`]: {
      get: { responses: { '200': { description: 'all', ...json({ type: 'array', items: item }) } } },
      post: { requestBody: { required: true, ...json(input) }, responses: { '200': { description: 'created', ...json(item) } } },
      patch: {
        ...(filter ? { parameters: where } : {}),
        requestBody: { required: true, ...json(input) },
        responses: { '200': { description: 'how many changed', ...json({ type: 'object', properties: { count: { type: 'integer' } } }) } },
      },
    },
    [`/${name}/{id}`]: {
      get: { parameters: id, responses: { '200': { description: 'one', ...json(item) }, '404': { description: 'missing' } } },
      patch: {
        parameters: id,
        requestBody: { required: true, ...json(input) },
        responses: { '204': { description: 'changed' }, '404': { description: 'missing' } },
      },
      delete: { parameters: id, responses: { '204': { description: 'removed' }, '404': { description: 'missing' } } },
    },
  };
}

const SPEC = { openapi: '3.0.3', info: { title: 'collections', version: '1.0.0' }, paths: { ...collection('tasks', false), ...collection('notes', true) } };
const SEED: Record<string, { id: number; title: string }[]> = {
  tasks: [
    { id: 1, title: 'Seeded task one' },
    { id: 2, title: 'Seeded task two' },
  ],
  notes: [
    { id: 1, title: 'Seeded note one' },
    { id: 2, title: 'Seeded note two' },
  ],
};

let server: Server;
let outcome: EngineOutcome;
const rows: Record<string, { id: number; title: string }[]> = { tasks: [], notes: [] };
/** Each bulk write the target received: method, collection, and its `where` filter. */
const bulk: { method: string; name: string; where?: string }[] = [];

function handle(req: IncomingMessage, res: ServerResponse, body: string) {
  const reply = (status: number, payload?: unknown) => {
    res.writeHead(status, payload === undefined ? {} : { 'content-type': 'application/json' });
    res.end(payload === undefined ? undefined : JSON.stringify(payload));
  };
  const url = new URL(req.url ?? '/', 'http://x');
  const [, name, rawId, extra] = url.pathname.split('/');
  const list = rows[name ?? ''];
  if (!list || extra !== undefined) return reply(404, { error: 'not found' });
  let sent: { title?: unknown } = {};
  if (req.method === 'POST' || req.method === 'PATCH') {
    try {
      sent = JSON.parse(body) as { title?: unknown };
    } catch {
      return reply(400, { error: 'invalid JSON' });
    }
    if (typeof sent?.title !== 'string') return reply(422, { error: 'title is required' });
  }
  if (rawId === undefined || rawId === '') {
    if (req.method === 'GET') return reply(200, list);
    if (req.method === 'POST') {
      const row = { id: Math.max(0, ...list.map((r) => r.id)) + 1, title: sent.title as string };
      list.push(row);
      return reply(200, row);
    }
    if (req.method === 'PATCH' || req.method === 'DELETE') {
      const filter = url.searchParams.get('where') ?? undefined;
      bulk.push({ method: req.method, name: name!, where: filter });
      let match: (r: { id: number }) => boolean = () => true;
      if (filter !== undefined) {
        try {
          const w = JSON.parse(filter) as { id?: unknown };
          match = (r) => w.id === undefined || r.id === w.id;
        } catch {
          return reply(400, { error: 'where is not JSON' });
        }
      }
      const hit = list.filter(match);
      if (req.method === 'DELETE') rows[name!] = list.filter((r) => !match(r));
      else for (const r of hit) r.title = sent.title as string;
      return reply(200, { count: hit.length });
    }
    return reply(405, { error: 'method not allowed' });
  }
  const row = list.find((r) => String(r.id) === rawId);
  if (!row) return reply(404, { error: 'no such item' });
  if (req.method === 'GET') return reply(200, row);
  // Item writes change only the scan's own records here: the seed stays as found whatever the scan does to the collection.
  if (req.method === 'PATCH') {
    if (SEED[name!]!.some((s) => s.id === row.id)) return reply(403, { error: 'seeded rows are read-only' });
    row.title = sent.title as string;
    return reply(204);
  }
  if (req.method === 'DELETE') {
    if (SEED[name!]!.some((s) => s.id === row.id)) return reply(403, { error: 'seeded rows are read-only' });
    rows[name!] = list.filter((r) => r !== row);
    return reply(204);
  }
  return reply(405, { error: 'method not allowed' });
}

beforeAll(async () => {
  for (const name of Object.keys(SEED)) rows[name] = SEED[name]!.map((r) => ({ ...r }));
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => handle(req, res, body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const engine = createSecurityEngine({ tuning: { timeDelayMs: 300, oversizeBodyBytes: 64 * 1024, recoveryWaitMs: 2000 } });
  outcome = await engine.run(makeCtx({ url, spec_text: JSON.stringify(SPEC), options: { timeout: 5 } as never }));
}, 180_000);

afterAll(async () => {
  await new Promise((r) => {
    server.closeAllConnections();
    server.close(r);
  });
});

describe('writes to a whole collection', () => {
  it("leaves the target's own records as found: every seeded row is there with its title", () => {
    for (const [name, seed] of Object.entries(SEED))
      for (const s of seed) expect(rows[name]!.find((r) => r.id === s.id)?.title, `${name} ${s.id}`).toBe(s.title);
  });

  it('never sends a whole-collection write without a filter, declared (PATCH /tasks) or not (DELETE by the methods probe)', () => {
    expect(bulk.filter((b) => b.where === undefined)).toEqual([]);
  });

  it('sends the filtered write (PATCH /notes) with a filter naming a note the scan created', () => {
    const filtered = bulk.filter((b) => b.name === 'notes' && b.method === 'PATCH');
    expect(filtered.length).toBeGreaterThan(0);
    for (const b of filtered) expect(SEED.notes!.map((s) => JSON.stringify({ id: s.id }))).not.toContain(b.where);
    const reached = outcome.security!.coverage.operations.find((o) => o.endpoint === 'PATCH /notes')?.reached_2xx;
    expect(reached?.primary || reached?.anonymous).toBe(true);
  });

  it('reports the unfiltered write as not tested, saying why', () => {
    const reasons = outcome.security!.coverage.checks.flatMap((c) => c.not_run.filter((n) => n.endpoints.includes('PATCH /tasks')).map((n) => n.reason));
    expect(
      reasons.some((r) => /whole collection .* no filter that limits it to a record the scan created/.test(r)),
      reasons.join('\n'),
    ).toBe(true);
    expect(outcome.tasks.filter((t) => t.endpoint === 'PATCH /tasks' && t.status === 'passed')).toEqual([]);
  });
});
