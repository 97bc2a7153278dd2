import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createLogger } from '../../src/app/logger.js';
import { call, startServer, storeLabel, waitForScan } from '../helpers/server.js';

describe(`logs never carry secrets (${storeLabel})`, () => {
  it('keys, sync secrets, socket keys and target credentials are redacted at debug level', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const server = await startServer({ logger: createLogger('debug', sink), env: { SERVICE_APP_SYNC_KEY: 'sync-secret-value-123' } });
    try {
      const t = await server.createTenant('pro');
      const headers = { 'X-API-Key': t.apiKey };
      await call(`${server.api}/usage`, { headers });
      await call(`${server.api}/usage`, { headers: { Authorization: `Bearer ${t.apiKey}` } });
      await call(`${server.api}/billing/sync-tenant`, {
        headers: { 'X-Sync-Key': 'sync-secret-value-123' },
        json: { tenant_id: 'x1', email: 'a@b.test', plan: 'free' },
      });
      const res = await call(`${server.api}/scan`, {
        headers,
        json: {
          url: 'http://target.test/?tasks=1',
          auth: { type: 'basic', username: 'alice', password: 'target-password-xyz', secondary: { type: 'bearer', token: 'second-token-abc' } },
        },
      });
      await waitForScan(server.api, t.apiKey, res.body.scan_id);
      const socket = new WebSocket(`${server.api.replace(/^http/, 'ws').replace(/\/api\/v1$/, '')}/ws/live?api_key=${t.apiKey}`);
      await new Promise((resolve, reject) => {
        socket.once('open', resolve);
        socket.once('error', reject);
      });
      socket.close();
      await new Promise((r) => setTimeout(r, 200));
      const log = lines.join('');
      expect(log).toContain('scan admitted');
      expect(log).toContain('"method":"GET"');
      for (const secret of [t.apiKey, 'sync-secret-value-123', 'target-password-xyz', 'second-token-abc']) expect(log).not.toContain(secret);
    } finally {
      await server.stop();
    }
  });

  it('writes one line per request at info level: id, method, URL with ?api_key= redacted, status, response time', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const server = await startServer({ logger: createLogger('info', sink) });
    try {
      const t = await server.createTenant('pro');
      await call(`${server.api}/usage`, { headers: { 'X-API-Key': t.apiKey, 'X-Request-Id': 'req-one' } });
      await call(`${server.api}/usage?api_key=${t.apiKey}`, { headers: { 'X-Request-Id': 'req-two' } });
      await new Promise((r) => setTimeout(r, 100));
      const requestLines = lines.map((l) => JSON.parse(l)).filter((l) => l.reqId === 'req-one' || l.reqId === 'req-two');
      expect(requestLines).toHaveLength(2);
      const [one, two] = requestLines;
      expect(one).toMatchObject({ msg: 'request completed', req: { method: 'GET', url: '/api/v1/usage' }, res: { statusCode: 200 } });
      expect(typeof one.responseTime).toBe('number');
      expect(two.req.url).toBe('/api/v1/usage?api_key=[redacted]');
      expect(two.res.statusCode).toBe(401);
      expect(lines.join('')).not.toContain(t.apiKey);
      expect(lines.join('')).not.toContain('incoming request');
    } finally {
      await server.stop();
    }
  });
});
