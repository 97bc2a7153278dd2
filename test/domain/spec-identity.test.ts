import { describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { documentIdentity, specIdentity } from '../../src/domain/spec-identity.js';

const petstore = {
  openapi: '3.0.3',
  info: { title: 'Pet Store', version: '1.0.0', description: 'Pets' },
  servers: [{ url: 'https://api.pets.test/v1' }, { url: 'https://staging.pets.test/v1' }],
  paths: {
    '/pets': { get: { responses: { 200: { description: 'ok' } } }, post: { responses: { 201: { description: 'made' } } } },
    '/pets/{petId}': { get: { responses: { 200: { description: 'ok' } } } },
  },
};

/** The same object with every key order reversed, at every depth. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reversed(v)]),
    );
  return value;
}

const key = (doc: unknown) => documentIdentity(JSON.stringify(doc)).key;

describe('API specification identity', () => {
  it('keeps the identity across key order, JSON vs YAML, server order, versions, descriptions and parameter names', () => {
    const base = key(petstore);
    expect(base).toMatch(/^doc:[0-9a-f]{64}$/);
    expect(key(reversed(petstore))).toBe(base);
    expect(documentIdentity(toYaml(petstore)).key).toBe(base);
    expect(documentIdentity(JSON.stringify(petstore, null, 4)).key).toBe(base);
    expect(key({ ...petstore, servers: [...petstore.servers].reverse() })).toBe(base);
    expect(key({ ...petstore, info: { title: '  pet   store ', version: '2.0.0', description: 'other words' } })).toBe(base);
    const renamedParam = { ...petstore, paths: { '/pets': petstore.paths['/pets'], '/pets/{id}': petstore.paths['/pets/{petId}'] } };
    expect(key(renamedParam)).toBe(base);
    expect(documentIdentity(JSON.stringify(petstore)).label).toBe('Pet Store');
  });

  it('makes a new identity for another title, server or operation set', () => {
    const base = key(petstore);
    expect(key({ ...petstore, info: { title: 'Cat Store', version: '1.0.0' } })).not.toBe(base);
    expect(key({ ...petstore, servers: [{ url: 'https://api.cats.test/v1' }] })).not.toBe(base);
    expect(key({ ...petstore, paths: { ...petstore.paths, '/owners': { get: {} } } })).not.toBe(base);
    expect(key({ ...petstore, paths: { '/pets': { get: {} }, '/pets/{petId}': { get: {} } } })).not.toBe(base);
  });

  it('reads Swagger 2 servers from schemes, host and basePath', () => {
    const swagger = { swagger: '2.0', info: { title: 'Old' }, host: 'api.old.test', basePath: '/v2', schemes: ['https'], paths: { '/a': { get: {} } } };
    const same = { ...swagger, host: 'API.OLD.TEST', basePath: '/v2/' };
    expect(key(same)).toBe(key(swagger));
    expect(key({ ...swagger, host: 'api.new.test' })).not.toBe(key(swagger));
  });

  it('identifies a spec_url by its normalised URL, and a scan without a specification by its target origin', () => {
    const a = specIdentity({ url: 'https://t.test/', spec_url: 'HTTPS://API.Pets.test:443/openapi.json#top' });
    const b = specIdentity({ url: 'https://other.test/', spec_url: 'https://api.pets.test/openapi.json' });
    expect(a.key).toBe(b.key);
    expect(a.key).toMatch(/^url:/);
    expect(specIdentity({ url: 'https://api.pets.test/openapi.json?v=2' }).key).not.toBe(a.key);
    const t1 = specIdentity({ url: 'https://target.test/app' });
    const t2 = specIdentity({ url: 'https://target.test/other?x=1' });
    expect(t1.key).toBe(t2.key);
    expect(t1.key).toMatch(/^target:/);
    expect(specIdentity({ url: 'https://elsewhere.test/app' }).key).not.toBe(t1.key);
    // Inline text wins over the target
    expect(specIdentity({ url: 'https://target.test/app', spec_text: JSON.stringify(petstore) }).key).toBe(key(petstore));
  });

  it('identifies unreadable text by its trimmed text', () => {
    const a = documentIdentity('  not: [valid');
    expect(a.key).toMatch(/^text:/);
    expect(documentIdentity('not: [valid\n\n').key).toBe(a.key);
    expect(documentIdentity('not: [other').key).not.toBe(a.key);
  });
});
