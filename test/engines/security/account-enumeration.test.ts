/**
 * Account enumeration judged on answers that really tell accounts apart, whatever else changes:
 * an Express-shaped auth API (email accounts, a users list to harvest a known one from) whose
 * answers each carry a fresh request token, and whose signup runs before its login in the spec
 * (the unknown account a signup creates must not be the one the login is tried with).
 * The vulnerable app tells "no account" (404) from "wrong password" (401); the fixed one does not,
 * and its signup answers 202 "check your inbox" for taken and new addresses alike.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import type { EngineOutcome } from '../../../src/domain/scan.js';
import { makeCtx } from './helpers.js';

const body = (schema: object) => ({ required: true, content: { 'application/json': { schema } } });
const ACCOUNT = {
  type: 'object',
  required: ['email', 'password'],
  properties: { email: { type: 'string', format: 'email', example: 'user@example.com' }, password: { type: 'string', example: 'hunter22' } },
};

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'accounts', version: '1.0.0' },
  servers: [{ url: '/api' }],
  paths: {
    '/auth/signup': {
      post: {
        operationId: 'signup',
        requestBody: body(ACCOUNT),
        responses: { '201': { description: 'created' }, '202': { description: 'check your inbox' }, '409': { description: 'taken' } },
      },
    },
    '/auth/login': {
      post: {
        operationId: 'login',
        requestBody: body(ACCOUNT),
        responses: { '200': { description: 'token' }, '401': { description: 'wrong password' }, '404': { description: 'no account' } },
      },
    },
    '/users': {
      get: {
        responses: {
          '200': {
            description: 'users',
            content: { 'application/json': { schema: { type: 'array', items: { type: 'object', properties: { email: { type: 'string' } } } } } },
          },
        },
      },
    },
  },
};

function startApp(fixed: boolean): Promise<{ url: string; server: Server }> {
  const accounts = new Map([['dana@shop.test', 'correct-horse']]);
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      // Each answer carries a fresh token, the way session-bound APIs answer.
      const send = (status: number, payload: object) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ ...payload, requestToken: randomBytes(24).toString('base64url') }));
      };
      const path = req.url?.split('?')[0];
      if (req.method === 'GET' && path === '/api/users') return send(200, { users: [...accounts.keys()].map((email) => ({ email })) });
      let data: { email?: string; password?: string } = {};
      try {
        data = JSON.parse(raw || '{}');
      } catch {
        return send(400, { error: 'Malformed JSON' });
      }
      if (req.method === 'POST' && path === '/api/auth/signup') {
        if (!data.email || !data.password) return send(422, { error: 'email and password are required' });
        const taken = accounts.has(data.email);
        if (!taken) accounts.set(data.email, data.password);
        if (fixed) return send(202, { message: 'If the address can be used, we sent a confirmation link.' });
        return taken ? send(409, { error: 'Email already registered' }) : send(201, { message: 'Welcome!' });
      }
      if (req.method === 'POST' && path === '/api/auth/login') {
        const password = accounts.get(data.email ?? '');
        if (password !== undefined && password === data.password) return send(200, { token: randomBytes(32).toString('hex') });
        if (fixed) return send(401, { error: 'Invalid email or password' });
        return password === undefined ? send(404, { error: 'No account for that email' }) : send(401, { error: 'Wrong password' });
      }
      send(404, { error: 'Not found' });
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}

const scan = (url: string) =>
  createSecurityEngine({ tuning: { onlyChecks: ['account-enumeration'] } }).run(
    makeCtx({ url, spec_text: JSON.stringify(SPEC), options: { concurrency: 1 } as never }),
  );

const task = (o: EngineOutcome, endpoint: string) => o.tasks.find((t) => t.check === 'account-enumeration' && t.endpoint === endpoint);
const notRunEntry = (o: EngineOutcome, endpoint: string) =>
  o.security?.coverage.checks.find((c) => c.check === 'account-enumeration')?.not_run.find((n) => n.endpoints.includes(endpoint));
const notRun = (o: EngineOutcome, endpoint: string) => notRunEntry(o, endpoint)?.reason;

describe('account enumeration on an Express-shaped API', () => {
  const apps: Server[] = [];
  let vuln: EngineOutcome;
  let fixed: EngineOutcome;

  beforeAll(async () => {
    const [v, f] = await Promise.all([startApp(false), startApp(true)]);
    apps.push(v.server, f.server);
    [vuln, fixed] = await Promise.all([scan(v.url), scan(f.url)]);
  });
  afterAll(() => apps.forEach((s) => s.close()));

  it('finds the login telling unknown accounts from known ones, with the harvested account as the known one', () => {
    const login = task(vuln, 'POST /auth/login');
    expect(login?.status).toBe('failed');
    expect(login?.evidence).toContain('dana@shop.test');
    expect(login?.evidence).toMatch(/HTTP 401[\s\S]*HTTP 404/);
    expect(login?.invented_values).toBeUndefined();
  });

  it('does not pass a signup that created the unknown account on the first request: it says why it could not compare', () => {
    expect(task(vuln, 'POST /auth/signup')).toBeUndefined();
    expect(notRun(vuln, 'POST /auth/signup')).toMatch(/registration created the unknown account/);
    expect(notRunEntry(vuln, 'POST /auth/signup')?.reason_code).toBe('inconclusive');
  });

  it('passes the fixed twin although every answer carries a fresh token', () => {
    expect(task(fixed, 'POST /auth/login')?.status).toBe('passed');
    expect(task(fixed, 'POST /auth/signup')?.status).toBe('passed');
  });
});
