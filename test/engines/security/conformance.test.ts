/** Schema conformance: response picking (exact, range, default) and the OpenAPI-to-JSON-Schema folding. */
import { describe, expect, it } from 'vitest';
import { judgeResponse, pickResponse, toValidationSchema, validatorFor } from '../../../src/engines/security/checks/schema-conformance.js';
import type { ApiModel, Operation, ResponseSpec, TargetResponse } from '../../../src/engines/security/types.js';

const json = (schema: object): ResponseSpec => ({ schema, contentTypes: ['application/json'] });
const model = (specVersion: string): ApiModel => ({ title: 't', apiVersion: '1', specVersion, serverPath: '', serverSchemes: [], operations: [] });
const op = (responses: Record<string, ResponseSpec>): Operation => ({
  key: 'GET /x',
  method: 'GET',
  path: '/x',
  tags: [],
  params: [],
  responses,
  secured: false,
  publicByDesign: false,
  links: [],
  extensions: {},
});
const res = (status: number, body: unknown, contentType = 'application/json'): TargetResponse => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    status,
    headers: { 'content-type': contentType },
    body: text,
    size: Buffer.byteLength(text),
    elapsedMs: 1,
    request: { method: 'GET', url: 'http://t/x', headers: {} },
  };
};

describe('schema conformance', () => {
  const responses = { '200': json({ type: 'integer' }), '2xx': json({ type: 'string' }), '4XX': json({ type: 'boolean' }), default: json({ type: 'null' }) };

  it('picks the response by exact status, then range, then default', () => {
    expect(pickResponse(responses, 200)?.key).toBe('200');
    expect(pickResponse(responses, 201)?.key).toBe('2xx');
    expect(pickResponse(responses, 404)?.key).toBe('4XX');
    expect(pickResponse(responses, 302)?.key).toBe('default');
    expect(pickResponse({ '200': json({}) }, 404)).toBeUndefined();
  });

  it('validates the body against the picked schema', () => {
    const m = { model: model('3.0.3') };
    expect(judgeResponse(m, op(responses), res(200, 5)).body?.errors).toEqual([]);
    expect(judgeResponse(m, op(responses), res(200, JSON.stringify('five'))).body?.errors.length).toBeGreaterThan(0);
    expect(judgeResponse(m, op(responses), res(201, JSON.stringify('five'))).body?.errors).toEqual([]);
    expect(judgeResponse(m, op(responses), res(500, null)).body?.errors).toEqual([]);
    expect(judgeResponse(m, op(responses), res(500, 1)).body?.errors.length).toBeGreaterThan(0);
  });

  it('reports undeclared statuses and content types, but not 401/403/429 or 5xx', () => {
    const m = { model: model('3.0.3') };
    const only200 = op({ '200': json({ type: 'object' }) });
    expect(judgeResponse(m, only200, res(202, {})).status).toMatch(/202 is not declared/);
    for (const s of [401, 403, 429, 500, 503]) expect(judgeResponse(m, only200, res(s, {})).status).toBeUndefined();
    expect(judgeResponse(m, only200, res(200, '<html>', 'text/html')).contentType).toMatch(/text\/html is not declared/);
    expect(
      judgeResponse(m, op({ '200': { contentTypes: ['application/*'], schema: { type: 'object' } } }), res(200, {}, 'application/vnd.x+json')).contentType,
    ).toBeUndefined();
    expect(judgeResponse(m, only200, res(200, '{not json')).body?.errors).toEqual(['the body is not valid JSON']);
  });

  it('folds the OpenAPI 3.0 dialect into JSON Schema (nullable, boolean exclusive bounds, writeOnly, oneOf, cycles)', () => {
    const node: any = {
      type: 'object',
      required: ['id', 'pw'],
      properties: {
        id: { type: 'integer', minimum: 0, exclusiveMinimum: true, nullable: true },
        pw: { type: 'string', writeOnly: true },
        kind: { oneOf: [{ type: 'string' }, { enum: ['a'] }] },
      },
    };
    node.properties.child = node;
    const out = toValidationSchema(node, true) as any;
    expect(out.properties.id).toEqual({ type: ['integer', 'null'], exclusiveMinimum: 0 });
    expect(out.required).toEqual(['id']);
    expect(out.properties.kind.anyOf).toHaveLength(2);
    expect(out.properties.child).toEqual({});
    const m = { model: model('3.0.3') };
    const o = op({ '200': json(node) });
    expect(judgeResponse(m, o, res(200, { id: null, kind: 'a', child: { id: 3 } })).body?.errors).toEqual([]);
    expect(judgeResponse(m, o, res(200, { id: 0 })).body?.errors.join()).toMatch(/must be > 0/);
  });

  it('uses JSON Schema 2020-12 for OpenAPI 3.1 (type arrays, const, prefixItems)', () => {
    const m = { model: model('3.1.0') };
    const o = op({
      '200': json({
        type: 'object',
        properties: { v: { type: ['string', 'null'] }, c: { const: 1 }, t: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] } },
      }),
    });
    expect(judgeResponse(m, o, res(200, { v: null, c: 1, t: ['a', 2] })).body?.errors).toEqual([]);
    expect(judgeResponse(m, o, res(200, { v: 3, c: 2, t: [1, 'a'] })).body?.errors.length).toBeGreaterThanOrEqual(3);
  });
});

describe('validatorFor', () => {
  it('compiles a schema once per content and dialect, across operations and scans', () => {
    const schema = () => ({ type: 'object', required: ['id'], properties: { id: { type: 'integer' }, name: { type: 'string', nullable: true } } });
    const a = validatorFor({ model: model('3.0.3') }, schema());
    const b = validatorFor({ model: model('3.0.3') }, schema());
    const modern = validatorFor({ model: model('3.1.0') }, schema());
    expect(a).not.toBe('unusable');
    expect(b).toBe(a);
    // 3.1 is another dialect (JSON Schema 2020-12): its own validator.
    expect(modern).not.toBe(a);
    if (a === 'unusable' || modern === 'unusable') return;
    expect(a({ id: 1, name: null })).toBe(true);
    expect(a({ name: 'x' })).toBe(false);
    expect(modern({ name: 'x' })).toBe(false);
    const other = validatorFor({ model: model('3.0.3') }, { ...schema(), required: ['name'] });
    expect(other).not.toBe(a);
  });

  it('says unusable for a schema Ajv cannot compile, every time', () => {
    const bad = () => ({ type: 'string', pattern: '(?<=a' });
    expect(validatorFor({ model: model('3.0.3') }, bad())).toBe('unusable');
    expect(validatorFor({ model: model('3.0.3') }, bad())).toBe('unusable');
  });
});
