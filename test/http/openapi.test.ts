import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, type TestServer } from '../helpers/server.js';

const REQUIRED_TAGS = ['scans', 'functional', 'usage', 'billing', 'security', 'llm', 'health'];

/** Fastify's `/scan/:id` is OpenAPI's `/scan/{id}`. */
const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}');

describe('OpenAPI document', () => {
  let server: TestServer;
  let doc: any;

  beforeAll(async () => {
    server = await startServer();
    doc = (await call(`${server.api}/openapi.json`)).body;
  });
  afterAll(async () => server?.stop());

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('declares the operation groups of the contract', () => {
    const tags = (doc.tags as Array<{ name: string }>).map((t) => t.name);
    for (const tag of REQUIRED_TAGS) expect(tags).toContain(tag);
  });

  it('lists every route the server serves, and nothing it does not', () => {
    const served = server.vigil.http!.routeTable.filter((r) => r.documented && r.method !== 'HEAD');
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const servedKeys = served.map((r) => `${r.method} ${toOpenApiPath(r.url)}`);
    expect(served.length).toBeGreaterThan(0);
    expect(documented.sort()).toEqual([...new Set(servedKeys)].sort());
  });

  it('describes every operation, with a tag, a summary and described responses including errors', () => {
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(op.tags?.length, where).toBeGreaterThan(0);
        expect(op.summary, where).toBeTruthy();
        const codes = Object.keys(op.responses);
        expect(codes.some((c) => c.startsWith('2')), where).toBe(true);
        expect(codes.some((c) => /^[45]/.test(c)), where).toBe(true);
        for (const [code, response] of Object.entries(op.responses as Record<string, any>)) {
          expect(response.description, `${where} ${code}`).toBeTruthy();
        }
      }
    }
  });

  it('marks exactly the operations that take no API key as needing none (security: [] or their own scheme)', () => {
    const keyless = (op: any) => Array.isArray(op.security) && !op.security.some((s: Record<string, unknown>) => 'ApiKey' in s);
    const ops = doc.paths as Record<string, Record<string, any>>;
    expect(keyless(ops['/api/v1/billing/webhook'].post)).toBe(true);
    expect(keyless(ops['/api/v1/health'].get)).toBe(true);
    expect(keyless(ops['/api/v1/billing/sync-tenant'].post)).toBe(true);
    // The dashboard's sign-up: public, with no scheme at all (the claim token is in the body).
    expect(ops['/api/v1/billing/signup'].get.security).toEqual([]);
    expect(ops['/api/v1/billing/signup'].post.security).toEqual([]);
    expect(ops['/api/v1/billing/checkout-sessions/{session_id}/claim'].post.security).toEqual([]);
    expect(keyless(ops['/api/v1/scan'].post)).toBe(false);
    expect(keyless(ops['/api/v1/usage'].get)).toBe(false);
  });

  it('gives examples for error bodies', () => {
    const rotate = doc.paths['/api/v1/keys/rotate'].post;
    const unauthorized = rotate.responses['401'].content['application/json'];
    const example = unauthorized.schema.examples?.[0] ?? unauthorized.example ?? Object.values(unauthorized.examples ?? {})[0];
    expect(JSON.stringify(example)).toContain('INVALID_API_KEY');
  });

  it('serves Swagger UI and Redoc with their assets locally (no CDN)', async () => {
    const ui = await call(`${server.api}/docs/`);
    expect(ui.status).toBe(200);
    expect(ui.text).not.toMatch(/https?:\/\/(cdn|unpkg|jsdelivr)/);
    const redoc = await call(`${server.api}/redoc`);
    expect(redoc.status).toBe(200);
    expect(redoc.text).toContain('/api/v1/redoc/redoc.standalone.js');
    expect(redoc.text).not.toMatch(/https?:\/\//);
    const bundle = await fetch(`${server.api}/redoc/redoc.standalone.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    const uiInit = await call(`${server.api}/docs/static/swagger-initializer.js`);
    expect(uiInit.status).toBe(200);
  });
});
