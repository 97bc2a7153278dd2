/** Resource consumption false-positive guards: a server slow on every invalid input, or slow on every request, is not reported. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import { backtrackingInputs } from '../../../src/engines/security/checks/resource-consumption.js';
import { costGrows } from '../../../src/engines/security/checks/timing.js';
import type { TargetResponse } from '../../../src/engines/security/types.js';
import { makeCtx } from './helpers.js';

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/ingest') {
      // A slow link: the body is read at about 16 MiB/s and answered at once, with no work per byte.
      let sinceYield = 0;
      req.on('data', (c: Buffer) => {
        sinceYield += c.length;
        if (sinceYield < 256 * 1024) return;
        sinceYield = 0;
        req.pause();
        setTimeout(() => req.resume(), 16);
      });
      req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{}'));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
      // /tarpit: every invalid email costs a constant 450 ms (an anti-automation delay, not backtracking).
      // /slow: every request costs 350 ms, whatever its size.
      const valid = typeof body.email === 'string' && /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i.test(body.email);
      if (req.url === '/tarpit' && !valid) await new Promise((r) => setTimeout(r, 450));
      if (req.url === '/slow') await new Promise((r) => setTimeout(r, 350));
      res.writeHead(valid || req.url === '/slow' ? 201 : 400, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const body = {
  content: { 'application/json': { schema: { type: 'object', properties: { email: { type: 'string', format: 'email', example: 'a@example.com' } } } } },
};
const spec = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 't', version: '1' },
  paths: {
    '/tarpit': { post: { requestBody: body, responses: { '201': { description: 'ok' } } } },
    '/slow': { post: { requestBody: body, responses: { '201': { description: 'ok' } } } },
  },
});
const ingestSpec = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 't', version: '1' },
  paths: { '/ingest': { post: { requestBody: body, responses: { '201': { description: 'stored' } } } } },
});

describe('resource consumption guards', () => {
  it('backtracking inputs are a long matching run followed by a mismatch', () => {
    const email = backtrackingInputs({ kind: 'body', name: 'email', schema: { type: 'string', format: 'email' }, value: 'a@b.co' }, 20);
    expect(email).toHaveLength(3);
    for (const s of email) expect(s).toMatch(/a{20}!$/);
    expect(backtrackingInputs({ kind: 'query', name: 'code', schema: { type: 'string', pattern: '^[A-Z]+$' }, value: 'XY' }, 10)).toEqual([
      'XXXXXXXXXX!',
      'XYXXXXXXXXXX!',
    ]);
  });

  it('reports neither a constant delay on invalid input nor a server slow on every request', async () => {
    const out = await createSecurityEngine({
      tuning: { onlyChecks: ['resource-consumption'], redosLengths: [18, 24], redosThresholdMs: 300, oversizeBodyBytes: 128 * 1024 },
    }).run(makeCtx({ url, spec_text: spec }));
    const names = out.tasks.map((t) => `${t.endpoint} ${t.name} ${t.status}`);
    expect(names).toContain('POST /tarpit Backtracking (ReDoS) input slows body field email passed');
    expect(names).toContain('POST /slow Oversized request body accepted passed');
    expect(out.tasks.filter((t) => t.status === 'failed')).toEqual([]);
  });
});

describe('oversized bodies on a slow link', () => {
  it('does not report a server whose time grows with the body only because the body takes longer to arrive', async () => {
    // 8 and 16 MiB at 16 MiB/s: half a second and a second, rising with the size every time, as any upload does.
    const out = await createSecurityEngine({ tuning: { onlyChecks: ['resource-consumption'], oversizeBodyBytes: 16 * 1024 * 1024 } }).run(
      makeCtx({ url, spec_text: ingestSpec }),
    );
    const task = out.tasks.find((t) => t.endpoint === 'POST /ingest' && t.name === 'Oversized request body accepted');
    expect(task?.status, task?.evidence).toBe('passed');
  }, 120_000);
});

describe('rising-cost judge', () => {
  const response = (elapsedMs: number) => ({ status: 201, elapsedMs }) as unknown as TargetResponse;
  const probes = (times: number[]) => {
    const queue = [...times];
    return () => Promise.resolve(response(queue.shift() ?? 0));
  };

  it('reports only when the cost rises with the size twice in a row (one contention burst is not a finding)', async () => {
    // small, large of the first pair, then of the confirmation pair (times in ms, baseline 10 ms)
    const once = { small: [400, 10], large: [900, 12] };
    const twice = { small: [400, 420], large: [900, 950] };
    expect(await costGrows(10, probes(once.small), probes(once.large))).toBeUndefined();
    const grew = await costGrows(10, probes(twice.small), probes(twice.large));
    expect(grew?.small.elapsedMs).toBe(400);
    expect(grew?.large.elapsedMs).toBe(900);
  });
});
