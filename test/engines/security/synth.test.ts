/** Spec loading and request synthesis on public-style specs: Swagger 2.0 YAML, OpenAPI 3.0 JSON with a relative file $ref, OpenAPI 3.1. */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TargetClient } from '../../../src/engines/security/client.js';
import { loadSpec } from '../../../src/engines/security/spec/index.js';
import { buildRequest } from '../../../src/engines/security/synth.js';
import type { ApiModel } from '../../../src/engines/security/types.js';

const dir = new URL('../../fixtures/specs/', import.meta.url);
let server: Server;
let base: string;
let client: TargetClient;
const served: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    served.push(req.url!);
    try {
      const body = readFileSync(new URL(`.${req.url}`, dir));
      res.writeHead(200, { 'content-type': req.url!.endsWith('.json') ? 'application/json' : 'application/yaml' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new TargetClient({ allowPrivate: true, concurrency: 2, timeoutMs: 5000, signal: new AbortController().signal, maxBodyBytes: 1 << 20 });
});
afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const load = async (file: string): Promise<ApiModel> => (await loadSpec(client, { specUrl: `${base}/${file}`, targetUrl: base }, async () => ({}))).model;
const op = (m: ApiModel, key: string) => {
  const o = m.operations.find((x) => x.key === key);
  expect(o, key).toBeDefined();
  return o!;
};

describe('request synthesis on real-world specs', () => {
  it('Swagger 2.0 YAML: basePath, body from definitions, form data, array query, security', async () => {
    const m = await load('petstore-swagger2.yaml');
    expect(m.specVersion).toBe('2.0');
    expect(m.serverPath).toBe('/v2');
    expect(m.operations).toHaveLength(5);
    const add = buildRequest(op(m, 'POST /pet'));
    const body = JSON.parse(String(add.body));
    expect(body.name).toBe('doggie');
    expect(Array.isArray(body.photoUrls)).toBe(true);
    expect(add.headers['content-type']).toBe('application/json');
    expect(op(m, 'POST /pet').secured).toBe(true);
    expect(op(m, 'GET /user/login').secured).toBe(false);
    const byStatus = buildRequest(op(m, 'GET /pet/findByStatus'));
    expect(byStatus.query.every(([k, v]) => k === 'status' && ['available', 'pending', 'sold'].includes(v))).toBe(true);
    expect(byStatus.query.length).toBeGreaterThan(0);
    const get = buildRequest(op(m, 'GET /pet/{petId}'));
    expect(get.path).toMatch(/^\/pet\/\d+$/);
    const form = buildRequest(op(m, 'POST /pet/{petId}'));
    expect(form.headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('OpenAPI 3.0 JSON with relative file $refs and allOf', async () => {
    const m = await load('petstore-expanded-3.0.json');
    expect(m.serverPath).toBe('/api');
    const add = buildRequest(op(m, 'POST /pets'));
    expect(typeof JSON.parse(String(add.body)).name).toBe('string');
    const list = buildRequest(op(m, 'GET /pets'));
    // Optional query parameters (tags, limit) are filters: left out rather than filled with made-up values
    // that would empty the list; a check that tests one sets it explicitly.
    expect(list.query).toEqual([]);
    expect(buildRequest(op(m, 'GET /pets'), { query: { limit: '5' } }).query).toEqual([['limit', '5']]);
    expect(buildRequest(op(m, 'DELETE /pets/{id}')).path).toMatch(/^\/pets\/\d+$/);
  });

  it('OpenAPI 3.1: type arrays, const, formats, examples, operation-level empty security', async () => {
    const m = await load('webhook-example-3.1.json');
    expect(m.specVersion).toBe('3.1.0');
    expect(m.serverPath).toBe('/v2');
    expect(m.operations.map((o) => o.key).sort()).toEqual(['GET /bookings/{bookingId}', 'POST /bookings']);
    const b = JSON.parse(String(buildRequest(op(m, 'POST /bookings')).body));
    expect(b.email).toMatch(/^[^@\s]+@[^@\s]+\.[a-z]+$/);
    expect(b.nights).toBeGreaterThanOrEqual(1);
    expect(b.nights).toBeLessThanOrEqual(14);
    expect(op(m, 'POST /bookings').secured).toBe(true);
    expect(op(m, 'GET /bookings/{bookingId}').secured).toBe(false);
    expect(buildRequest(op(m, 'GET /bookings/{bookingId}')).path).toMatch(/^\/bookings\/[0-9a-f-]{36}$/);
  });

  it('the same spec text again: the same model, as objects of its own; external $refs fetched again', async () => {
    const text = readFileSync(new URL('petstore-openapi3.yaml', dir), 'utf8');
    const first = (await loadSpec(client, { specText: text, targetUrl: base }, async () => ({}))).model;
    const pet = op(first, 'POST /pet').body!.schema as { properties: Record<string, unknown> };
    expect(pet.properties.category).toBeTypeOf('object');
    pet.properties.changed = { type: 'string' };
    const again = (await loadSpec(client, { specText: text, targetUrl: base }, async () => ({}))).model;
    expect(op(again, 'POST /pet').body!.schema).not.toBe(pet);
    expect((op(again, 'POST /pet').body!.schema as { properties: Record<string, unknown> }).properties.changed).toBeUndefined();
    delete pet.properties.changed;
    expect(again).toEqual(first);
    // A spec whose $refs reach other documents is dereferenced anew: what they say may have changed.
    const before = served.length;
    await load('petstore-expanded-3.0.json');
    await load('petstore-expanded-3.0.json');
    const fetched = served.slice(before).filter((u) => u !== '/petstore-expanded-3.0.json');
    expect(fetched.length).toBeGreaterThanOrEqual(2);
    expect(fetched.length % 2).toBe(0);
  });

  it('a spec that is not OpenAPI fails with a clear reason', async () => {
    await expect(loadSpec(client, { specText: 'just: some\nyaml: here\n', targetUrl: base }, async () => ({}))).rejects.toMatchObject({
      name: 'EngineFailure',
    });
    await expect(loadSpec(client, { specUrl: `${base}/missing.json`, targetUrl: base }, async () => ({}))).rejects.toMatchObject({ code: 'SPEC_NOT_FOUND' });
  });
});
