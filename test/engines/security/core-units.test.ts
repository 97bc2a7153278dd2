/** The security engine core's pure units: real-value keys and ranking, phases, unique bodies, coverage. */
import { describe, expect, it } from 'vitest';
import { ResourcePool, fitsSchema, keysForParam, normKey, resourceOf, singular } from '../../../src/engines/security/resources.js';
import { isDestructive, phaseOf } from '../../../src/engines/security/phases.js';
import { scanPassword, uniqueBody } from '../../../src/engines/security/unique-values.js';
import { CoverageRecorder } from '../../../src/engines/security/coverage.js';
import type { Operation, ParamSpec } from '../../../src/engines/security/types.js';

function op(method: string, path: string, extra: Partial<Operation> = {}): Operation {
  const params: ParamSpec[] = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  return { key: `${method} ${path}`, method, path, tags: [], params, responses: {}, secured: true, publicByDesign: false, links: [], extensions: {}, ...extra };
}

describe('normKey, singular, resourceOf', () => {
  it('normalises spellings of one property name to one key', () => {
    expect(normKey('book_title')).toBe('booktitle');
    expect(normKey('bookTitle')).toBe('booktitle');
    expect(normKey('Book-Title')).toBe('booktitle');
    expect(normKey('_id')).toBe('id');
  });

  it('singularises common resource names', () => {
    expect(singular('orders')).toBe('order');
    expect(singular('categories')).toBe('category');
    expect(singular('boxes')).toBe('box');
    expect(singular('matches')).toBe('match');
    expect(singular('addresses')).toBe('address');
    expect(singular('status')).toBe('status');
    expect(singular('courses')).toBe('course');
    expect(singular('Users')).toBe('user');
  });

  it('finds the resource a path is about, skipping versions, api and parameters', () => {
    expect(resourceOf('/books/v1')).toBe('book');
    expect(resourceOf('/api/v2/orders/{id}')).toBe('order');
    expect(resourceOf('/api/v1.2/items')).toBe('item');
    expect(resourceOf('/v1/users/{userId}/books/{bookId}')).toBe('book');
    expect(resourceOf('/v1/users/{userId}/books/{bookId}', 'userId')).toBe('user');
    expect(resourceOf('/user-profiles/{id}')).toBe('userprofile');
    expect(resourceOf('/api')).toBeUndefined();
    expect(resourceOf('/{id}')).toBeUndefined();
  });
});

describe('keysForParam', () => {
  it('`{orderId}` on /orders is the id of an order', () => {
    expect(keysForParam(op('GET', '/orders/{orderId}'), 'orderId')).toEqual(['orderid']);
    expect(keysForParam(op('GET', '/api/v2/orders/{order_id}'), 'order_id')).toEqual(['orderid']);
  });

  it('`{id}` on /invoices/{id} is an invoice id first, any id last', () => {
    expect(keysForParam(op('GET', '/invoices/{id}'), 'id')).toEqual(['invoiceid', 'id']);
  });

  it('`{book_title}` is filled from `book_title` / `bookTitle` values', () => {
    expect(keysForParam(op('GET', '/books/v1/{book_title}'), 'book_title')).toEqual(['booktitle']);
  });

  it('a parent parameter names its own resource', () => {
    expect(keysForParam(op('GET', '/users/{userId}/books/{bookId}'), 'userId')).toEqual(['userid']);
    expect(keysForParam(op('GET', '/users/{userId}/books/{bookId}'), 'bookId')).toEqual(['bookid']);
  });

  it('matches a singular stem to a plural the singulariser keeps imperfect (`{statusId}` on /statuses)', () => {
    const pool = new ResourcePool();
    pool.harvestJson([{ id: 's-1' }], op('GET', '/statuses'), 'primary', false);
    expect(pool.pathValues(op('GET', '/statuses/{statusId}'), 'primary')).toEqual({ statusId: 's-1' });
  });
});

describe('ResourcePool', () => {
  it('ranks owned by the identity, then seen by it, then owned by the other, then seen by the other', () => {
    const pool = new ResourcePool();
    const list = op('GET', '/things');
    pool.add('thingid', { value: 'seen-by-other', source: 'id', from: list.key, identity: 'secondary', owned: false });
    pool.add('thingid', { value: 'owned-by-other', source: 'id', from: list.key, identity: 'secondary', owned: true });
    pool.add('thingid', { value: 'seen-by-me', source: 'id', from: list.key, identity: 'primary', owned: false });
    pool.add('thingid', { value: 'owned-by-me', source: 'id', from: list.key, identity: 'primary', owned: true });
    expect(pool.lookup(['thingid'], { identity: 'primary' }).map((v) => v.value)).toEqual(['owned-by-me', 'seen-by-me', 'owned-by-other', 'seen-by-other']);
    expect(pool.lookup(['thingid'], { identity: 'secondary' }).map((v) => v.value)).toEqual(['owned-by-other', 'seen-by-other', 'owned-by-me', 'seen-by-me']);
    expect(pool.lookup(['thingid'], { identity: 'primary', owned: true }).map((v) => v.value)).toEqual(['owned-by-me']);
  });

  it('an owned sighting upgrades an earlier plain one of the same value', () => {
    const pool = new ResourcePool();
    pool.add('thingid', { value: 't1', source: 'id', from: 'GET /things', identity: 'primary', owned: false });
    pool.add('thingid', { value: 't1', source: 'id', from: 'POST /things', identity: 'primary', owned: true });
    expect(pool.lookup(['thingid'], { identity: 'primary', owned: true })).toEqual([
      { value: 't1', source: 'id', from: 'POST /things', identity: 'primary', owned: true },
    ]);
  });

  it('files `_id` of a collection under `id` and `<resource>id`, nested objects under their own resource', () => {
    const pool = new ResourcePool();
    pool.harvestJson({ data: [{ _id: 'a1', author: { id: 7, name: 'Ann' } }] }, op('GET', '/api/v1/books'), 'primary', false);
    expect(pool.lookup(['bookid']).map((v) => v.value)).toEqual(['a1']);
    expect(pool.lookup(['authorid']).map((v) => v.value)).toEqual([7]);
    expect(pool.lookup(['authorname']).map((v) => v.value)).toEqual(['Ann']);
  });

  it("a path parameter gets its own resource's id, not the id of something the scan owns elsewhere", () => {
    const pool = new ResourcePool();
    pool.harvestJson([{ _id: 'u1', username: 'alice' }], op('GET', '/users'), 'primary', false);
    pool.harvestJson({ _id: 't1', title: 'mine' }, op('POST', '/things'), 'primary', true);
    pool.harvestJson([{ id: 'i1' }], op('GET', '/invoices'), 'primary', false);
    expect(pool.pathValues(op('GET', '/invoices/{id}'), 'primary')).toEqual({ id: 'i1' });
    expect(pool.pathValues(op('GET', '/users/{id}'), 'primary')).toEqual({ id: 'u1' });
    expect(pool.pathValues(op('GET', '/things/{id}'), 'primary')).toEqual({ id: 't1' });
    // Asked for owned values only: no invoice is owned, and an owned thing id is still no invoice id.
    expect(pool.lookup(keysForParam(op('GET', '/invoices/{id}'), 'id'), { identity: 'primary', owned: true })).toEqual([]);
    // No invoice id at all: any real id is still better than an invented one.
    const bare = new ResourcePool();
    bare.harvestJson({ id: 'me-1' }, op('GET', '/me'), 'primary', true);
    expect(bare.pathValues(op('GET', '/users/{id}'), 'primary')).toEqual({ id: 'me-1' });
  });

  it('what the scan owns is kept even when long lists seen by both identities filled the key', () => {
    const pool = new ResourcePool();
    const items = Array.from({ length: 25 }, (_, i) => ({ _id: `seeded-${i}` }));
    pool.harvestJson(items, op('GET', '/things'), 'primary', false);
    pool.harvestJson(items, op('GET', '/things'), 'secondary', false);
    pool.harvestJson({ _id: 'mine' }, op('POST', '/things'), 'primary', true);
    expect(pool.lookup(['thingid'], { identity: 'primary', owned: true }).map((v) => v.value)).toEqual(['mine']);
    expect(pool.pathValues(op('GET', '/things/{thingId}'), 'primary')).toEqual({ thingId: 'mine' });
  });

  it('skips values that do not fit the parameter schema', () => {
    const pool = new ResourcePool();
    pool.harvestJson([{ id: 'abc' }, { id: 42 }], op('GET', '/orders'), 'primary', false);
    const get = op('GET', '/orders/{orderId}');
    get.params[0].schema = { type: 'integer' };
    expect(pool.pathValues(get, 'primary')).toEqual({ orderId: '42' });
  });
});

describe('fitsSchema', () => {
  it('integer, number', () => {
    expect(fitsSchema('12', { schema: { type: 'integer' } })).toBe(true);
    expect(fitsSchema(3, { schema: { type: 'integer' } })).toBe(true);
    expect(fitsSchema('1.5', { schema: { type: 'integer' } })).toBe(false);
    expect(fitsSchema('abc', { schema: { type: ['integer', 'null'] } })).toBe(false);
    expect(fitsSchema('1.5', { schema: { type: 'number' } })).toBe(true);
    expect(fitsSchema('x', { schema: { type: 'number' } })).toBe(false);
  });

  it('enum (compared as text)', () => {
    expect(fitsSchema('a', { schema: { enum: ['a', 'b'] } })).toBe(true);
    expect(fitsSchema('c', { schema: { enum: ['a', 'b'] } })).toBe(false);
    expect(fitsSchema(1, { schema: { enum: [1, 2] } })).toBe(true);
  });

  it('uuid', () => {
    expect(fitsSchema('3fa85f64-5717-4562-b3fc-2c963f66afa6', { schema: { type: 'string', format: 'uuid' } })).toBe(true);
    expect(fitsSchema('64b7f0c2a1e4', { schema: { type: 'string', format: 'uuid' } })).toBe(false);
  });

  it('pattern, lengths; an unparsable pattern rules nothing out', () => {
    expect(fitsSchema('64b7f0c2a1e4b2d3c4e5f601', { schema: { type: 'string', pattern: '^[0-9a-fA-F]{24}$' } })).toBe(true);
    expect(fitsSchema('vigil', { schema: { type: 'string', pattern: '^[0-9a-fA-F]{24}$' } })).toBe(false);
    expect(fitsSchema('x', { schema: { pattern: '(' } })).toBe(true);
    expect(fitsSchema('abcdef', { schema: { maxLength: 5 } })).toBe(false);
    expect(fitsSchema('ab', { schema: { minLength: 3 } })).toBe(false);
    expect(fitsSchema('anything', {} as Pick<ParamSpec, 'schema'>)).toBe(true);
  });
});

describe('phases', () => {
  const destructive: [string, string][] = [
    ['POST', '/reset-database'],
    ['POST', '/createdb'],
    ['GET', '/createdb'],
    ['POST', '/admin/seed'],
    ['POST', '/api/init'],
    ['POST', '/db/recreate'],
    ['POST', '/flush-cache'],
    ['DELETE', '/items'],
    ['DELETE', '/items/'],
  ];
  const notDestructive: [string, string][] = [
    ['POST', '/users/password/reset'],
    ['POST', '/auth/reset-password'],
    ['POST', '/sessions/reset-token'],
    ['POST', '/password-reset'],
    ['POST', '/forgot-password'],
    ['GET', '/initial-config'],
    ['GET', '/settings/initialization-status'],
    ['GET', '/dropdown-options'],
    ['DELETE', '/items/{id}'],
    ['POST', '/purchase'],
  ];

  it.each(destructive)('%s %s is destructive and runs last', (method, path) => {
    expect(isDestructive(op(method, path))).toBe(true);
    expect(phaseOf(op(method, path))).toBe('destructive');
  });

  it.each(notDestructive)('%s %s is not destructive', (method, path) => {
    expect(isDestructive(op(method, path))).toBe(false);
  });

  it('reads the operationId and summary too', () => {
    expect(isDestructive(op('POST', '/api/v1/system', { operationId: 'resetDatabase' }))).toBe(true);
    expect(isDestructive(op('POST', '/system', { summary: 'Seed the demo data' }))).toBe(true);
    expect(isDestructive(op('POST', '/users', { summary: 'Initial user setup' }))).toBe(false);
  });

  it('orders the rest by method', () => {
    expect(phaseOf(op('GET', '/items/{id}'))).toBe('read');
    expect(phaseOf(op('POST', '/items'))).toBe('create');
    expect(phaseOf(op('PUT', '/items/{id}'))).toBe('update');
    expect(phaseOf(op('PATCH', '/items/{id}'))).toBe('update');
    expect(phaseOf(op('DELETE', '/items/{id}'))).toBe('delete');
  });
});

describe('uniqueBody', () => {
  const marker = 'vigil-a1b2c3';

  it('makes identifying fields unique with the marker, sets passwords, leaves enums and other fields alone', () => {
    const body = {
      username: 'alice',
      email: 'alice@example.com',
      title: 'Example book',
      password: 'example',
      password_confirmation: 'example',
      role: 'user',
      status: 'open',
      count: 3,
      tags: ['a'],
      description: 'text',
    };
    const schema = { properties: { role: { type: 'string', enum: ['user', 'admin'] }, status: { type: 'string', enum: ['open', 'closed'] } } };
    const out = uniqueBody(body, schema, marker, 1) as Record<string, unknown>;
    expect(out.username).toBe('vigil-a1b2c3-1');
    expect(out.email).toBe('vigil-a1b2c3-1@example.com');
    expect(out.title).toBe('vigil-a1b2c3-1');
    expect(out.password).toBe(scanPassword(marker));
    expect(out.password_confirmation).toBe(scanPassword(marker));
    expect(out).toMatchObject({ role: 'user', status: 'open', count: 3, tags: ['a'], description: 'text' });
    // Another create of the same scan gets other values.
    expect((uniqueBody(body, schema, marker, 2) as Record<string, unknown>).username).toBe('vigil-a1b2c3-2');
  });

  it('an enum-constrained identifying field keeps its value', () => {
    const out = uniqueBody({ name: 'small' }, { properties: { name: { type: 'string', enum: ['small', 'large'] } } }, marker, 1);
    expect(out).toEqual({ name: 'small' });
  });

  it('respects maxLength and keeps values distinct', () => {
    const schema = { properties: { title: { type: 'string', maxLength: 5 }, email: { type: 'string', format: 'email', maxLength: 12 } } };
    const one = uniqueBody({ title: 'x', email: 'x' }, schema, marker, 1) as Record<string, string>;
    const eleven = uniqueBody({ title: 'x', email: 'x' }, schema, marker, 11) as Record<string, string>;
    for (const v of [one, eleven]) {
      expect(v.title.length).toBeLessThanOrEqual(5);
      expect(v.email.length).toBeLessThanOrEqual(12);
      expect(v.email).toMatch(/@/);
    }
    expect(one.title).not.toBe(eleven.title);
    expect(one.email).not.toBe(eleven.email);
  });

  it('respects minLength', () => {
    const out = uniqueBody({ title: 'x' }, { properties: { title: { type: 'string', minLength: 20 } } }, marker, 1) as Record<string, string>;
    expect(out.title.length).toBeGreaterThanOrEqual(20);
    expect(out.title).toContain(marker);
  });

  it('a pattern that refuses hyphens still gets a unique value (never the example user)', () => {
    const snake = uniqueBody({ username: 'alice' }, { properties: { username: { type: 'string', pattern: '^[a-z0-9_]{3,20}$' } } }, marker, 1) as Record<
      string,
      string
    >;
    expect(snake.username).toMatch(/^[a-z0-9_]{3,20}$/);
    expect(snake.username).toContain('a1b2c3');
    const letters = uniqueBody({ username: 'alice' }, { properties: { username: { type: 'string', pattern: '^[a-z]+$' } } }, marker, 1) as Record<
      string,
      string
    >;
    expect(letters.username).toMatch(/^[a-z]+$/);
    expect(letters.username).not.toBe('alice');
  });

  it('password fields are words, not substrings: passport_number and bypass are left alone', () => {
    const out = uniqueBody({ newPassword: 'a', pwd: 'b', oldPassword: 'old', passport_number: 'X123', bypass: 'yes' }, undefined, marker, 1);
    expect(out).toEqual({ newPassword: scanPassword(marker), pwd: scanPassword(marker), oldPassword: 'old', passport_number: 'X123', bypass: 'yes' });
  });

  it('one level of nesting', () => {
    const out = uniqueBody({ user: { name: 'x', email: 'y' } }, undefined, marker, 3);
    expect(out).toEqual({ user: { name: 'vigil-a1b2c3-3', email: 'vigil-a1b2c3-3@example.com' } });
  });
});

describe('CoverageRecorder', () => {
  it('per operation statuses and 2xx per identity; skipped ones do not count', () => {
    const rec = new CoverageRecorder(false);
    const list = op('GET', '/things');
    const reset = op('POST', '/admin/reset');
    const item = op('GET', '/things/{id}');
    rec.operations([list, reset, item]);
    rec.response(list, 'primary', 200);
    rec.response(list, 'none', 401);
    rec.response(item, 'primary', 404);
    rec.skipped(reset, 'safe mode: destructive or global');
    expect(rec.reached()).toEqual({ ok: 1, total: 2 });
    expect(rec.operationCoverage()).toEqual([
      { endpoint: 'GET /things', statuses: [200, 401], reached_2xx: { primary: true, secondary: null, anonymous: false }, requests: 2 },
      {
        endpoint: 'POST /admin/reset',
        statuses: [],
        reached_2xx: { primary: false, secondary: null, anonymous: false },
        requests: 0,
        skipped: 'safe mode: destructive or global',
      },
      { endpoint: 'GET /things/{id}', statuses: [404], reached_2xx: { primary: false, secondary: null, anonymous: false }, requests: 1 },
    ]);
  });

  it('per check: ran, and reasons with the operations they apply to', () => {
    const rec = new CoverageRecorder(true);
    rec.check('bola', 'BOLA');
    rec.ran('bola');
    rec.notRun('bola', { code: 'not_applicable', text: 'no path parameter' }, 'GET /things');
    rec.notRun('bola', { code: 'not_applicable', text: 'no path parameter' }, 'POST /things');
    // The same text under another code is another reason.
    rec.notRun('bola', { code: 'prerequisite_missing', text: 'no path parameter' }, 'GET /other');
    rec.check('jwt', 'JWT');
    rec.notRun('jwt', { code: 'prerequisite_missing', text: 'no JWT seen' });
    expect(rec.checkCoverage()).toEqual([
      {
        check: 'bola',
        title: 'BOLA',
        ran: 1,
        not_run: [
          { reason: 'no path parameter', reason_code: 'not_applicable', count: 2, endpoints: ['GET /things', 'POST /things'] },
          { reason: 'no path parameter', reason_code: 'prerequisite_missing', count: 1, endpoints: ['GET /other'] },
        ],
      },
      { check: 'jwt', title: 'JWT', ran: 0, not_run: [{ reason: 'no JWT seen', reason_code: 'prerequisite_missing', count: 1, endpoints: [] }] },
    ]);
  });
});
