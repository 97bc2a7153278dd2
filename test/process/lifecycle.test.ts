import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVigil } from '../helpers/process.js';
import { freshStore, storeLabel, type TestStore } from '../helpers/server.js';

describe(`the vigil command (${storeLabel})`, () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await freshStore();
  });
  afterAll(async () => store?.dispose());

  it("lists the client's commands and the operator's in --help (the server install's vigil has both)", async () => {
    const help = runVigil(['--help'], store.env);
    expect(await help.exited).toBe(0);
    for (const command of ['scan', 'scans', 'baselines', 'init', 'usage', 'billing', 'live', 'serve', 'tenants', 'keys'])
      expect(help.output()).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  });

  it('stops on one clear line, naming the variable, when configuration is invalid', async () => {
    const vigil = runVigil(['serve'], { ...store.env, PORT: 'abc' });
    expect(await vigil.exited).toBe(3);
    const lines = vigil.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/PORT/);
  });

  it('on SIGTERM finishes the in-flight request, closes the store and exits 0', async () => {
    const vigil = runVigil(['serve'], { ...store.env, PORT: '0', SERVICE_APP_SYNC_KEY: 'k', REDIS_URL: process.env.REDIS_URL });
    const [, url] = await vigil.waitFor(/listening on (http:\/\/[\d.:]+)\/api\/v1/);
    const { port } = new URL(url);
    const body = JSON.stringify({ tenant_id: 'inflight', email: 'a@b.co', plan: 'pro' });
    // Start a request and hold back the end of its body, so it is in flight when SIGTERM lands.
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let response = '';
    socket.on('data', (d) => (response += d.toString()));
    const closed = new Promise((r) => socket.once('close', r));
    socket.write(
      `POST /api/v1/billing/sync-tenant HTTP/1.1\r\nHost: x\r\nX-Sync-Key: k\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 200));
    vigil.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    // New connections are refused while the in-flight one is still served.
    const refused = await new Promise<boolean>((resolve) => {
      const probe = connect(Number(port), '127.0.0.1');
      probe.once('connect', () => {
        probe.destroy();
        resolve(false);
      });
      probe.once('error', () => resolve(true));
    });
    expect(refused).toBe(true);
    socket.write(body.slice(10));
    await closed;
    expect(response).toMatch(/^HTTP\/1\.1 200/);
    expect(response).toContain('"tenant_id":"inflight"');
    expect(await vigil.exited).toBe(0);
  });

  it('operator commands: tenants create, list, keys rotate', async () => {
    const create = runVigil(['tenants', 'create', '--plan', 'team', '--id', 'ops-test', '--email', 'ops@x.co', '--json'], store.env);
    expect(await create.exited).toBe(0);
    const created = JSON.parse(create.output().slice(create.output().indexOf('{')));
    expect(created).toMatchObject({ tenant_id: 'ops-test', plan: 'team', api_key: expect.stringMatching(/^svc_pk_/) });

    const list = runVigil(['tenants', 'list'], store.env);
    expect(await list.exited).toBe(0);
    expect(list.output()).toMatch(/ops-test\s+team\s+active\s+svc_pk_/);
    expect(list.output()).not.toContain(created.api_key);

    const rotate = runVigil(['keys', 'rotate', '--tenant', 'ops-test', '--json'], store.env);
    expect(await rotate.exited).toBe(0);
    const rotated = JSON.parse(rotate.output().slice(rotate.output().indexOf('{')));
    expect(rotated.api_key).not.toBe(created.api_key);

    const duplicate = runVigil(['tenants', 'create', '--plan', 'team', '--id', 'ops-test'], store.env);
    expect(await duplicate.exited).toBe(3);
    const badPlan = runVigil(['tenants', 'create', '--plan', 'gold'], store.env);
    expect(await badPlan.exited).toBe(3);
    expect(badPlan.output()).toMatch(/--plan must be one of/);
  });
});
