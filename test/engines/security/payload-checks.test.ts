/** Injection, SSRF, redirect and resource checks: what they say about themselves, where they apply, and the value a payload is built on. */
import { describe, expect, it } from 'vitest';
import type { Operation, OperationCheck, ParamSpec, RequestSpec } from '../../../src/engines/security/types.js';
import { injectionPoints } from '../../../src/engines/security/synth.js';
import { pathParam, pointValue } from '../../../src/engines/security/checks/payload-check.js';
import { sqlInjection } from '../../../src/engines/security/checks/sql-injection.js';
import { nosqlInjection } from '../../../src/engines/security/checks/nosql-injection.js';
import { timeInjection } from '../../../src/engines/security/checks/time-injection.js';
import { pathTraversal } from '../../../src/engines/security/checks/path-traversal.js';
import { ssti } from '../../../src/engines/security/checks/ssti.js';
import { xss } from '../../../src/engines/security/checks/xss.js';
import { ssrf } from '../../../src/engines/security/checks/ssrf.js';
import { openRedirect } from '../../../src/engines/security/checks/open-redirect.js';
import { resourceConsumption } from '../../../src/engines/security/checks/resource-consumption.js';

const CHECKS: OperationCheck[] = [sqlInjection, nosqlInjection, timeInjection, pathTraversal, ssti, xss, ssrf, openRedirect, resourceConsumption];

function operation(method: string, path: string, params: ParamSpec[], body?: Operation['body']): Operation {
  return { key: `${method} ${path}`, method, path, tags: [], params, body, responses: {}, secured: false, publicByDesign: false, links: [], extensions: {} };
}
const param = (name: string, at: ParamSpec['in'], schema: ParamSpec['schema'] = { type: 'string' }): ParamSpec => ({ name, in: at, required: true, schema });

describe('check metadata', () => {
  it.each(CHECKS.map((c) => [c.id, c] as const))('%s explains itself', (_id, c) => {
    expect(c.scope).toBe('operation');
    expect(c.title.length).toBeGreaterThan(3);
    for (const text of [c.description, c.risk, c.remediation]) expect(text?.length ?? 0).toBeGreaterThan(40);
    expect(c.owasp).toMatch(/^API(10|[1-9]):2023$/);
    expect(c.cwe).toMatch(/^CWE-\d+$/);
    expect(c.references?.length).toBeGreaterThan(0);
    for (const r of c.references ?? []) expect(r.url).toMatch(/^https:\/\/(cheatsheetseries\.owasp\.org|owasp\.org|portswigger\.net)\//);
  });

  it('flags exactly the checks that measure time', () => {
    expect(CHECKS.filter((c) => c.timing).map((c) => c.id)).toEqual(['time-injection', 'resource-consumption']);
  });

  it('maps each to its OWASP risk and weakness', () => {
    const ids = Object.fromEntries(CHECKS.map((c) => [c.id, `${c.owasp} ${c.cwe}`]));
    expect(ids).toMatchObject({ ssrf: 'API7:2023 CWE-918', 'resource-consumption': 'API4:2023 CWE-770', 'sql-injection': 'API8:2023 CWE-89', 'open-redirect': 'API8:2023 CWE-601' });
  });
});

describe('where the checks apply', () => {
  const jsonBody = (properties: Record<string, unknown>): Operation['body'] => ({ contentType: 'application/json', required: true, schema: { type: 'object', properties } });
  const noInput = operation('GET', '/health', []);
  const numberOnly = operation('GET', '/items', [param('page', 'query', { type: 'integer', example: 2 })]);
  const redirect = operation('GET', '/login', [param('next', 'query', { type: 'string', example: '/home' })]);
  const webhook = operation('POST', '/hooks', [], jsonBody({ image_url: { type: 'string', format: 'uri' } }));
  // The engine calls applies(op, ctx); these checks only look at the operation.
  const applies = (c: OperationCheck, op: Operation) => c.applies?.(op, undefined as never);

  it('gives a reason when an operation has nothing to test', () => {
    for (const c of CHECKS) {
      const verdict = applies(c, noInput);
      expect(typeof verdict, c.id).toBe('string');
      expect((verdict as string).length, c.id).toBeGreaterThan(5);
    }
    expect(applies(xss, numberOnly)).toBe('no string parameter or body field');
    expect(applies(sqlInjection, numberOnly)).toBe(true);
    expect(applies(nosqlInjection, redirect)).toBe('no JSON body field');
    expect(applies(nosqlInjection, webhook)).toBe(true);
    expect(applies(openRedirect, redirect)).toBe(true);
    expect(applies(openRedirect, webhook)).toBe('no redirect-like parameter');
    expect(applies(ssrf, webhook)).toBe(true);
    expect(applies(ssrf, numberOnly)).toBe('no URL-like parameter or body field');
  });
});

describe('the value a payload is built on', () => {
  it('reads a path parameter out of the concrete path', () => {
    expect(pathParam('/users/{userId}/orders/{orderId}', '/users/u-7/orders/1001', 'orderId')).toBe('1001');
    expect(pathParam('/users/{userId}/orders/{orderId}', '/users/u-7/orders/1001', 'userId')).toBe('u-7');
    expect(pathParam('/books/{book_title}', '/books/The%20Hobbit', 'book_title')).toBe('The Hobbit');
    expect(pathParam('/v1.0/{id}', '/v1x0/5', 'id')).toBeUndefined();
    expect(pathParam('/files/{name}.json', '/files/report.json', 'name')).toBe('report');
    expect(pathParam('/users/{id}', '/users/5', 'other')).toBeUndefined();
  });

  it('prefers what the request carries (a harvested id) over the spec value', () => {
    const op = operation('GET', '/orders/{orderId}', [param('orderId', 'path', { type: 'string', example: 'example-id' }), param('q', 'query', { type: 'string', example: 'shoes' })]);
    const [path, query] = injectionPoints(op);
    const req: RequestSpec = { method: 'GET', path: '/orders/1001', query: [['q', 'boots']], headers: {} };
    expect(path.value).toBe('example-id');
    expect(pointValue(req, op, path)).toBe('1001');
    expect(pointValue(req, op, query)).toBe('boots');
    expect(pointValue({ ...req, query: [] }, op, query)).toBe('shoes');
  });
});
