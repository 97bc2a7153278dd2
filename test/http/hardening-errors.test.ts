/**
 * Every non-2xx answer is in the contract's `{error, message, status}` shape, including what Node's
 * HTTP parser and Fastify's router answer before a route runs and the 503s while the server closes.
 * No `FST_` code reaches a client.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { startServer, storeLabel, type TestServer } from '../helpers/server.js';

function expectShape(res: { status: number; body: string }, status: number, code: string): void {
  expect(res.status, res.body).toBe(status);
  expect(res.body).not.toMatch(/FST_|statusCode/);
  const body = JSON.parse(res.body);
  expect(body).toMatchObject({ error: code, status });
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
}

/** Reads a socket's bytes until `done` says the expected answers have arrived (or the peer closes). */
function collect(socket: import('node:net').Socket, done: (data: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    socket.setEncoding('utf8');
    const finish = () => resolve(data);
    socket.on('data', (chunk: string) => {
      data += chunk;
      if (done(data)) {
        socket.off('close', finish);
        resolve(data);
      }
    });
    socket.on('close', finish);
    socket.on('error', reject);
  });
}

describe(`errors before a route runs (${storeLabel})`, () => {
  let server: TestServer;
  let base: string;
  let apiKey: string;

  beforeAll(async () => {
    server = await startServer();
    base = server.api.replace('/api/v1', '');
    ({ apiKey } = await server.createTenant('pro'));
  });
  afterAll(async () => server?.stop());

  const send = (text: string) => rawRequest(base, text);
  const get = (target: string, headers = '') =>
    send(`GET ${target} HTTP/1.1\r\nHost: vigil.test\r\nX-API-Key: ${apiKey}\r\n${headers}Connection: close\r\n\r\n`);

  it('malformed percent-encoding in the path: 400 INVALID_REQUEST (was FST_ERR_BAD_URL)', async () => {
    expectShape(await get('/api/v1/%zz'), 400, 'INVALID_REQUEST');
    expectShape(await get('/api/v1/scan/%E0%A4%A'), 400, 'INVALID_REQUEST');
  });

  it('a path parameter of any length inside the URL limit is looked up: an unknown scan id is 404 NOT_FOUND, a URL over the limit 414', async () => {
    expectShape(await get(`/api/v1/scan/${'a'.repeat(101)}`), 404, 'NOT_FOUND');
    expectShape(await get(`/api/v1/scan/${'a'.repeat(8000)}`), 404, 'NOT_FOUND');
    expectShape(await get(`/api/v1/scan/${'a'.repeat(8193)}`), 414, 'URI_TOO_LONG');
  });

  it('a URL over 8192 characters: 414 URI_TOO_LONG; request line and headers over 16 KiB: 431 HEADERS_TOO_LARGE', async () => {
    expectShape(await get(`/api/v1/scans?x=${'a'.repeat(9000)}`), 414, 'URI_TOO_LONG');
    expect((await get(`/api/v1/health?x=${'a'.repeat(8192 - '/api/v1/health?x='.length)}`)).status).toBe(200);
    expectShape(await get(`/api/v1/health?x=${'a'.repeat(8193 - '/api/v1/health?x='.length)}`), 414, 'URI_TOO_LONG');
    expectShape(await get(`/api/v1/scans?x=${'a'.repeat(20_000)}`), 431, 'HEADERS_TOO_LARGE');
    expectShape(await get('/api/v1/health', `X-Big: ${'a'.repeat(20_000)}\r\n`), 431, 'HEADERS_TOO_LARGE');
  });

  it.each([
    ['garbage request line', 'GARBAGE\r\n\r\n'],
    ['unknown method', 'FOO /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
    ['unsupported HTTP version', 'GET /api/v1/health HTTP/9.9\r\nHost: x\r\nConnection: close\r\n\r\n'],
    ['NUL in the path', 'GET /api/v1/he\0alth HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
    ['space in a header name', 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nBad Header: y\r\nConnection: close\r\n\r\n'],
    ['Content-Length not a number', 'POST /api/v1/scan HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\nConnection: close\r\n\r\n'],
    [
      'Transfer-Encoding and Content-Length together',
      'POST /api/v1/scan HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n',
    ],
    [
      'bad chunk size',
      'POST /api/v1/scan HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    ],
    ['HTTP/2 preface on the HTTP/1 port', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
  ])('%s: 400 INVALID_REQUEST (was a bare "Client Error")', async (_name, text) => {
    expectShape(await send(text), 400, 'INVALID_REQUEST');
  });

  it('HTTP/1.1 without Host: 400 INVALID_REQUEST (Node answered an empty 400)', async () => {
    expectShape(await send('GET /api/v1/health HTTP/1.1\r\nConnection: close\r\n\r\n'), 400, 'INVALID_REQUEST');
  });

  it('Expect other than 100-continue: 417 EXPECTATION_FAILED (Node answered an empty 417)', async () => {
    expectShape(await get('/api/v1/health', 'Expect: magic\r\n'), 417, 'EXPECTATION_FAILED');
  });

  it('CONNECT: 404 NOT_FOUND (Node dropped the connection without an answer)', async () => {
    expectShape(await send('CONNECT vigil.test:443 HTTP/1.1\r\nHost: vigil.test:443\r\n\r\n'), 404, 'NOT_FOUND');
  });

  it('the server still serves normal requests', async () => {
    const res = await get('/api/v1/scans');
    expect(res.status).toBe(200);
  });
});

describe(`503 while the server closes (${storeLabel})`, () => {
  it('a request arriving on a kept-alive connection during shutdown gets 503 SERVICE_UNAVAILABLE in the error shape', async () => {
    const server = await startServer();
    try {
      const { apiKey } = await server.createTenant('pro');
      const { port, hostname } = new URL(server.api);
      const socket = connect(Number(port), hostname);
      await new Promise((resolve) => socket.once('connect', resolve));
      const answers = collect(socket, (data) => /\r\n\r\n\{"error":"SERVICE_UNAVAILABLE"[^}]*\}/.test(data));
      const body = JSON.stringify({ url: 'http://target.test/app', mode: 'functional' });
      // The first request is routed before the close (Node answers 100 Continue once it dispatches it);
      // its body and a second request follow once the server is closing.
      socket.write(
        `POST /api/v1/scan HTTP/1.1\r\nHost: vigil.test\r\nX-API-Key: ${apiKey}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
      );
      await new Promise<void>((resolve) => {
        const seen = (chunk: Buffer) => {
          if (chunk.toString().includes('100 Continue')) {
            socket.off('data', seen);
            resolve();
          }
        };
        socket.on('data', seen);
      });
      const closing = server.vigil.http!.close();
      while (server.vigil.http!.server.listening) await new Promise((resolve) => setTimeout(resolve, 5));
      socket.write(`${body}GET /api/v1/scans HTTP/1.1\r\nHost: vigil.test\r\nX-API-Key: ${apiKey}\r\n\r\n`);
      const data = await answers;
      socket.destroy();
      await closing;
      const statuses = [...data.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
      expect(statuses).toEqual([100, 202, 503]);
      const last = data.slice(data.lastIndexOf('HTTP/1.1 503'));
      expect(last).toMatch(/connection: close/i);
      expectShape({ status: 503, body: last.slice(last.indexOf('\r\n\r\n') + 4) }, 503, 'SERVICE_UNAVAILABLE');
    } finally {
      await server.stop();
    }
  });
});
