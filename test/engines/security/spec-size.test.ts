/**
 * A specification fetched by URL or discovered is read up to VIGIL_SPEC_MAX_BYTES (5 MiB), like an
 * uploaded one, not cut at the engine's 256 KiB response cap; one over the limit fails with
 * SPEC_TOO_LARGE saying so. The document here is Vigil's own OpenAPI document (over 256 KiB).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TargetClient } from '../../../src/engines/security/client.js';
import { loadSpec } from '../../../src/engines/security/spec/index.js';
import { DEFAULT_TUNING } from '../../../src/engines/security/types.js';
import { servedOpenApiDocument } from '../../../scripts/openapi-document.js';

let server: Server;
let base: string;
let client: TargetClient;
let documentText: string;

beforeAll(async () => {
  documentText = JSON.stringify(await servedOpenApiDocument());
  server = createServer((req, res) => {
    if (req.url === '/openapi.json' || req.url === '/spec/vigil.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(documentText);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The engine's own response cap, as a scan uses it.
  client = new TargetClient({
    allowPrivate: true,
    concurrency: 2,
    timeoutMs: 10_000,
    signal: new AbortController().signal,
    maxBodyBytes: DEFAULT_TUNING.maxBodyBytes,
  });
});

afterAll(async () => {
  await client?.close();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

describe('specification size', () => {
  it('is a document larger than the response cap (the case this guards)', () => {
    expect(Buffer.byteLength(documentText)).toBeGreaterThan(DEFAULT_TUNING.maxBodyBytes);
  });

  it('reads a large document from spec_url and by discovery whole', async () => {
    const operations = (JSON.parse(documentText).paths ? Object.values(JSON.parse(documentText).paths as Record<string, object>) : []).reduce(
      (n: number, item) => n + Object.keys(item).filter((k) => ['get', 'post', 'put', 'patch', 'delete'].includes(k)).length,
      0,
    );
    const byUrl = await loadSpec(client, { specUrl: `${base}/spec/vigil.json`, targetUrl: base }, async () => ({}));
    expect(byUrl.model.operations.length).toBe(operations);
    const discovered = await loadSpec(client, { targetUrl: base }, async () => ({}));
    expect(discovered.source).toBe(`${base}/openapi.json`);
    expect(discovered.model.operations.length).toBe(operations);
  });

  it('refuses a document over the limit with SPEC_TOO_LARGE, by URL and by discovery', async () => {
    const maxBytes = 100 * 1024;
    for (const src of [
      { specUrl: `${base}/spec/vigil.json`, targetUrl: base, maxBytes },
      { targetUrl: base, maxBytes },
    ]) {
      const failure = await loadSpec(client, src, async () => ({})).catch((e) => e);
      expect(failure).toMatchObject({ code: 'SPEC_TOO_LARGE' });
      expect(failure.message).toMatch(/at most 100 KiB \(VIGIL_SPEC_MAX_BYTES\)/);
    }
  });
});
