/**
 * Request bodies still being sent at once are capped per client address and per tenant: a client that
 * trickles bodies (slowloris) cannot hold every parser of a process. Over a cap the next request is
 * 429 at once, before its body is read; when an open body ends, requests are served again.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, storeLabel, type TestServer } from '../helpers/server.js';

/** A POST /scan whose headers promise 1000 bytes of which only the first few are sent. */
function openSlowBody(port: number, apiKey: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `POST /api/v1/scan HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"url":`,
      );
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

/** A complete small request; its status. */
async function probe(api: string, apiKey: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${api}/scan`, { method: 'POST', headers: { 'X-API-Key': apiKey, 'content-type': 'application/json' }, body: '{"url":"not a url"}' });
  return { status: res.status, body: await res.json() };
}

/** Probes until `accept(status)`, at most `tries` times: the server counts a socket's headers when it reads them. */
async function probeUntil(api: string, apiKey: string, accept: (status: number) => boolean, tries = 100): Promise<{ status: number; body: any }> {
  let last = await probe(api, apiKey);
  for (let i = 1; i < tries && !accept(last.status); i++) {
    await new Promise((r) => setTimeout(r, 100));
    last = await probe(api, apiKey);
  }
  return last;
}

describe(`open request bodies are capped per address and per tenant (${storeLabel})`, () => {
  let server: TestServer;
  let port: number;
  let keyA: string;
  let keyB: string;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    server = await startServer({ env: { VIGIL_OPEN_BODIES_PER_ADDRESS: '3', VIGIL_OPEN_BODIES_PER_TENANT: '2' } });
    port = Number(new URL(server.api).port);
    ({ apiKey: keyA } = await server.createTenant('enterprise'));
    ({ apiKey: keyB } = await server.createTenant('enterprise'));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await server?.stop();
  });

  /**
   * Opens one more slow body of `key`, then probes with `probeKey` until a probe is refused. A probe in
   * flight when the slow body's headers are read takes the last slot itself and the slow body is the one
   * refused: then the slow body is opened again.
   */
  async function holdOneMoreUntilRefused(key: string, probeKey: string): Promise<{ status: number; body: any }> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const slow = await openSlowBody(port, key);
      let refusedItself = false;
      slow.on('data', () => (refusedItself = true));
      const answer = await probeUntil(server.api, probeKey, (status) => status === 429 || refusedItself, 50);
      if (!refusedItself && answer.status === 429) {
        sockets.push(slow);
        return answer;
      }
      slow.destroy();
    }
    throw new Error('no probe was refused in 20 attempts');
  }

  it('refuses a tenant over its cap, then an address over its cap, and serves again when a body ends', async () => {
    expect((await probe(server.api, keyA)).status).toBe(422);
    sockets.push(await openSlowBody(port, keyA));
    const tenantRefused = await holdOneMoreUntilRefused(keyA, keyA);
    expect(tenantRefused.body).toMatchObject({ error: 'RATE_LIMIT_EXCEEDED', status: 429, retry_after: 1 });
    expect(tenantRefused.body.message).toContain('of this tenant');
    // Tenant B may still send: one open body of its own fills the address's three.
    expect((await probe(server.api, keyB)).status).toBe(422);
    const addressRefused = await holdOneMoreUntilRefused(keyB, keyB);
    expect(addressRefused.body.message).toContain('from this address');

    sockets.shift()!.destroy();
    const served = await probeUntil(server.api, keyB, (s) => s !== 429);
    expect(served.status).toBe(422);
  }, 60_000);
});
