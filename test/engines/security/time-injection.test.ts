/**
 * Time-based injection against a target that slows down as the scan writes to it (json-server
 * rewrites its whole file on every write): each write makes the next answer later. Rising delays
 * alone take that drift for an injected sleep; each confirmation is therefore measured against the
 * same probe asking for no delay, sent just before it. The twin really sleeps and drifts too.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../../src/domain/scan.js';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import { makeCtx } from './helpers.js';

const DELAY_MS = 200;
/** Each stored note makes every later write this much slower, up to DRIFT_CAP notes. */
const DRIFT_MS = 200;
const DRIFT_CAP = 12;

const spec = (url: string) => ({
  openapi: '3.0.3',
  info: { title: 'notes', version: '1' },
  servers: [{ url }],
  paths: {
    '/notes': {
      get: { responses: { '200': { description: 'notes', content: { 'application/json': { schema: { type: 'array', items: { type: 'object' } } } } } } },
      post: {
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', required: ['title'], properties: { title: { type: 'string', maxLength: 200 } } } } },
        },
        responses: { '201': { description: 'created', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
  },
});

/** A notes API whose writes slow down with what it stores; `sleeps`: the title also reaches a shell. */
function notesApi(sleeps: boolean): Promise<{ url: string; server: Server; writes: () => number }> {
  const notes: { id: number; title: string }[] = [];
  const server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/openapi.json') return send(200, spec(url));
    if (req.url !== '/notes') return send(404, { error: 'not found' });
    if (req.method === 'GET') return send(200, notes.slice(-20));
    if (req.method !== 'POST') return send(405, { error: 'method not allowed' });
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c;
    });
    req.on('end', () => {
      let title: unknown;
      try {
        title = (JSON.parse(raw) as { title?: unknown }).title;
      } catch {}
      if (typeof title !== 'string') return send(400, { error: 'title is required' });
      const note = { id: notes.length + 1, title: title.slice(0, 200) };
      notes.push(note);
      const slept = sleeps ? Number(/sleep (\d+(?:\.\d+)?)/.exec(title)?.[1] ?? 0) * 1000 : 0;
      setTimeout(() => send(201, note), Math.min(notes.length, DRIFT_CAP) * DRIFT_MS + slept);
    });
  });
  let url = '';
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      resolve({ url, server, writes: () => notes.length });
    }),
  );
}

let drifting: Awaited<ReturnType<typeof notesApi>>;
let sleeping: Awaited<ReturnType<typeof notesApi>>;
let driftTasks: Task[];
let sleepTasks: Task[];

beforeAll(async () => {
  [drifting, sleeping] = await Promise.all([notesApi(false), notesApi(true)]);
  const engine = createSecurityEngine({ tuning: { onlyChecks: ['time-injection'], timeDelayMs: DELAY_MS } });
  const scan = (url: string) => engine.run(makeCtx({ url, spec_url: `${url}/openapi.json`, options: { concurrency: 1 } as never })).then((o) => o.tasks);
  [driftTasks, sleepTasks] = await Promise.all([scan(drifting.url), scan(sleeping.url)]);
}, 300_000);

afterAll(() => {
  drifting?.server.close();
  sleeping?.server.close();
});

const injectionTasks = (tasks: Task[]) => tasks.filter((t) => t.check === 'time-injection' && t.endpoint === 'POST /notes');

describe('time-based injection on a target that slows down as it is written to', () => {
  it('drift is no finding: every family is tested on the field and passes', () => {
    expect(drifting.writes()).toBeGreaterThan(6);
    const tasks = injectionTasks(driftTasks);
    expect(tasks.map((t) => [t.name, t.status])).toEqual([
      ['OS command injection (time-based) in body field title', 'passed'],
      ['SQL injection (time-based) in body field title', 'passed'],
    ]);
  });

  it('a real sleep on the same drifting target is still confirmed, against zero-delay controls', () => {
    const found = injectionTasks(sleepTasks).find((t) => t.status === 'failed');
    expect(found?.name).toBe('OS command injection (time-based) in body field title');
    expect(found?.severity).toBe('critical');
    expect(found?.evidence).toMatch(/400 ms gave \d+ ms against \d+ ms for 0 ms; 600 ms gave \d+ ms against \d+ ms for 0 ms/);
  });
});
