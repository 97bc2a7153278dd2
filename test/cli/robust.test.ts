/**
 * The CLI in a pipeline that misbehaves: vigil scans wait resumes a --no-wait scan, polling survives a
 * server restart, a CONCURRENT_LIMIT start waits for a slot instead of exiting 4, every request times out.
 */
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { runVigil } from '../helpers/process.js';
import { call, freshStore, startServer, storeLabel, waitForScan, type TestServer, type TestStore } from '../helpers/server.js';
import { gateEngines } from './gate-engine.js';

async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe(`vigil scans wait and a server restart (${storeLabel})`, () => {
  let store: TestStore;
  let server: TestServer | undefined;
  afterAll(async () => {
    await server?.stop();
    await store?.dispose();
  });

  it('resumes a --no-wait scan with vigil scans wait, across a server restart', async () => {
    store = await freshStore();
    const port = await freePort();
    const start = () => startServer({ store, engines: gateEngines(), env: { PORT: String(port) } });
    server = await start();
    const { apiKey } = await server.createTenant('enterprise');
    const env = { VIGIL_URL: `http://127.0.0.1:${port}`, VIGIL_API_KEY: apiKey };

    const started = runVigil(['scan', 'http://api.test/?findings=critical', '--no-wait'], env);
    expect(await started.exited, started.output()).toBe(0);
    const id = /^(scn_\S+)$/m.exec(started.output())![1]!;
    await waitForScan(server.api, apiKey, id);

    // The server goes away; the follower keeps retrying with backoff, then resumes once it is back.
    await server.stop();
    server = undefined;
    const wait = runVigil(['scans', 'wait', id, '--poll-interval', '0.1', '--json'], env);
    await wait.waitFor(/cannot get \/scan\/\S+\/results \(CONNECTION_FAILED/);
    server = await start();
    const code = await wait.exited;
    expect(code, wait.output()).toBe(1);
    expect(wait.output()).toContain('connection to the server restored');
    const body = JSON.parse(wait.output().slice(wait.output().indexOf('\n{') + 1));
    expect(body).toMatchObject({ scan_id: id, status: 'completed', exit_code: 1 });
    expect(body.gate.failing).toHaveLength(1);

    // Gives up (exit 2) when the server stays away longer than --reconnect-timeout.
    await server.stop();
    server = undefined;
    const lost = runVigil(['scans', 'wait', id, '--reconnect-timeout', '1'], env);
    expect(await lost.exited).toBe(2);
    expect(lost.output()).toMatch(/^error CONNECTION_FAILED: /m);
    // An unknown id is a usage error.
    server = await start();
    const missing = runVigil(['scans', 'wait', 'scn_nope'], env);
    expect(await missing.exited).toBe(3);
  });
});

describe(`vigil scan follows a scan across a server restart (${storeLabel})`, () => {
  let store: TestStore;
  let server: TestServer | undefined;
  afterAll(async () => {
    await server?.stop();
    await store?.dispose();
  });

  it('keeps polling while the server restarts mid-scan, then judges the finished scan', async () => {
    store = await freshStore();
    const port = await freePort();
    // The test engine's scan takes 3 s; a graceful stop lets it finish (grace 20 s) before the server goes.
    const start = () => startServer({ store, env: { PORT: String(port) } });
    server = await start();
    const { apiKey } = await server.createTenant('enterprise');
    const p = runVigil(['scan', 'http://target.test/?outcome=findings&delay_ms=3000', '--poll-interval', '0.2'], {
      VIGIL_URL: `http://127.0.0.1:${port}`,
      VIGIL_API_KEY: apiKey,
    });
    await p.waitFor(/^progress \d+% status=running/m);
    await server.stop();
    server = undefined;
    await p.waitFor(/cannot get \/scan\/\S+\/results \(CONNECTION_FAILED/);
    server = await start();
    const code = await p.exited;
    expect(code, p.output()).toBe(1);
    expect(p.output()).toContain('connection to the server restored');
    expect(p.output()).toMatch(/^progress 100% status=completed phase=completed findings=1$/m);
    expect(p.output()).toContain('FAILED: 1 security finding(s) at or above high');
  });
});

describe(`vigil scan waits for a free slot (${storeLabel})`, () => {
  let server: TestServer;
  afterAll(async () => {
    await server?.stop();
  });

  it('a start refused with CONCURRENT_LIMIT is retried until a slot frees, not exit 4; --queue-wait bounds it', async () => {
    server = await startServer({ env: { VIGIL_CONCURRENT_SCANS: 'pro=1' } });
    const { apiKey } = await server.createTenant('pro');
    const env = { VIGIL_URL: server.vigil.url!, VIGIL_API_KEY: apiKey };
    const blocker = await call(`${server.api}/scan`, { headers: { 'X-API-Key': apiKey }, json: { url: 'http://target.test/?outcome=hang', mode: 'security' } });
    expect(blocker.status).toBe(202);

    const bounded = runVigil(['scan', 'http://target.test/?delay_ms=20', '--queue-wait', '1'], env);
    expect(await bounded.exited).toBe(4);
    expect(bounded.output()).toMatch(/CONCURRENT_LIMIT\); waiting \d+ s for a slot/);

    const p = runVigil(['scan', 'http://target.test/?delay_ms=20', '--poll-interval', '0.1'], env);
    await p.waitFor(/waiting \d+ s for a slot/);
    const cancelled = await call(`${server.api}/scan/${blocker.body.scan_id}/cancel`, { method: 'POST', headers: { 'X-API-Key': apiKey } });
    expect(cancelled.status).toBe(200);
    expect(await p.exited, p.output()).toBe(0);
    expect(p.output()).toContain('PASSED');
  });
});

describe('request timeouts', () => {
  let silent: NetServer;
  const sockets: Socket[] = [];
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent?.close(r));
  });

  it('a server that never answers fails the request after VIGIL_HTTP_TIMEOUT seconds', async () => {
    silent = createNetServer((socket) => void sockets.push(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const p = runVigil(['scans', 'list'], { VIGIL_URL: `http://127.0.0.1:${port}`, VIGIL_API_KEY: 'svc_pk_x', VIGIL_HTTP_TIMEOUT: '1' });
    expect(await p.exited).toBe(2);
    expect(p.output()).toMatch(/^error TIMEOUT: GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/scans: no answer within 1 s$/m);
  });
});
