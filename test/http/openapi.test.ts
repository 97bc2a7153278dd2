import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, type TestServer } from '../helpers/server.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

/** Runs a linter from node_modules/.bin; resolves with its exit code and output. */
function runBin(name: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(join('node_modules', '.bin', name), args, { timeout: 150_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

const REQUIRED_TAGS = ['scans', 'functional', 'usage', 'billing', 'security', 'llm', 'health'];

/** Fastify's `/scan/:id` is OpenAPI's `/scan/{id}`. */
const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}');

describe('OpenAPI document', () => {
  let server: TestServer;
  let doc: any;

  beforeAll(async () => {
    // With a metrics token, GET /metrics is on this server and in its document (checked and linted with the rest).
    server = await startServer({ env: { VIGIL_METRICS_TOKEN: 'openapi-test-metrics-token' } });
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
        expect(
          codes.some((c) => c.startsWith('2')),
          where,
        ).toBe(true);
        expect(
          codes.some((c) => /^[45]/.test(c)),
          where,
        ).toBe(true);
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

  it('names every operation with a unique operationId, and declares every tag it uses', () => {
    const ids: string[] = [];
    const used = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(op.operationId, `${method.toUpperCase()} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
        ids.push(op.operationId);
        for (const tag of op.tags ?? []) used.add(tag);
      }
    }
    expect(ids.length).toBeGreaterThanOrEqual(35);
    expect(new Set(ids).size).toBe(ids.length);
    const declared = (doc.tags as Array<{ name: string }>).map((t) => t.name);
    expect([...used].filter((t) => !declared.includes(t))).toEqual([]);
  });

  it('declares Retry-After (required) on every 429, the rate-limit headers on errors too, 413/414, and the defaults', () => {
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        const limited = op.responses['429'];
        if (limited) expect(limited.headers?.['Retry-After']?.required, where).toBe(true);
        expect(op.responses['414'], where).toBeDefined();
        if (method !== 'get') expect(op.responses['413'], where).toBeDefined();
      }
    }
    const start = doc.paths['/api/v1/scan'].post;
    expect(Object.keys(start.responses['422'].headers)).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']));
    const options = start.requestBody.content['application/json'].schema.properties.options.properties;
    expect(options.concurrency.default).toBe(5);
    expect(options.timeout.default).toBe(30);
    expect(doc.paths['/api/v1/billing/webhook'].post.security).toEqual([{ ProviderSignature: [] }]);
  });

  it('every example of a request or response is valid against its schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
    addFormats(ajv);
    ajv.addFormat('binary', true);
    ajv.addSchema(doc, 'openapi.json');
    const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
    const invalid: string[] = [];
    let checked = 0;
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        const media: Array<[string, any]> = [];
        for (const [type, m] of Object.entries(op.requestBody?.content ?? {})) media.push([`requestBody/content/${escape(type)}`, m]);
        for (const [status, r] of Object.entries(op.responses as Record<string, any>)) {
          for (const [type, m] of Object.entries(r.content ?? {})) media.push([`responses/${status}/content/${escape(type)}`, m]);
        }
        for (const [where, m] of media) {
          const examples = [
            ...(m.schema?.examples ?? []),
            ...(m.example !== undefined ? [m.example] : []),
            ...Object.values(m.examples ?? {}).map((e: any) => e.value),
          ];
          if (examples.length === 0) continue;
          const validate = ajv.compile({ $ref: `openapi.json#/paths/${escape(path)}/${method}/${where}/schema` });
          for (const example of examples) {
            checked += 1;
            if (!validate(example)) invalid.push(`${method.toUpperCase()} ${path} ${where}: ${ajv.errorsText(validate.errors)}`);
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(invalid).toEqual([]);
  });

  it("passes Spectral's and Redocly's recommended rules with no error (npm run lint:openapi)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-openapi-lint-'));
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    try {
      const spectral = await runBin('spectral', ['lint', file, '--ruleset', '.spectral.yaml', '--fail-severity', 'error']);
      expect(spectral.output).toMatch(/0 errors|No results with a severity of 'error' found/);
      expect(spectral.code, spectral.output).toBe(0);
      const redocly = await runBin('redocly', ['lint', file, '--config', 'redocly.yaml']);
      expect(redocly.output).toContain('Your API description is valid');
      expect(redocly.code, redocly.output).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

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
