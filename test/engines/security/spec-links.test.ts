/**
 * Spec parsing per version: OpenAPI 3 response links (by operationId, by operationRef, through a
 * components.links $ref), operations that are public by design, and Swagger 2.0 / OpenAPI 3 versions
 * of one API building the same operations.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildModel, dereferenceSpec, parseSpecText } from '../../../src/engines/security/spec/index.js';
import type { ApiModel, Operation } from '../../../src/engines/security/types.js';

const TARGET = 'http://api.test/';

/** Parsed and dereferenced as loadSpec does (local $refs only: no fetcher). */
async function modelOf(text: string): Promise<ApiModel> {
  return buildModel(await dereferenceSpec(parseSpecText(text), `${TARGET}openapi.json`, undefined), TARGET);
}

function op(model: ApiModel, key: string): Operation {
  const found = model.operations.find((o) => o.key === key);
  if (!found) throw new Error(`${key} not in ${model.operations.map((o) => o.key).join(', ')}`);
  return found;
}

/** An invoicing API: creating an invoice links to reading it, its lines and its owner. */
function invoicesDoc(version: string) {
  const ok = { description: 'ok' };
  return {
    openapi: version,
    info: { title: 'invoices', version: '1' },
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      links: {
        InvoiceLines: {
          // Percent-encoded braces, as a URI fragment may carry them.
          operationRef: '#/paths/~1invoices~1%7Binvoice_id%7D~1lines/get',
          parameters: { invoice_id: '$response.header.Location', limit: 10 },
        },
      },
    },
    paths: {
      '/invoices': {
        post: {
          operationId: 'createInvoice',
          responses: {
            '201': {
              description: 'created',
              links: {
                GetInvoiceById: { operationId: 'getInvoice', parameters: { invoice_id: '$response.body#/id' } },
                GetInvoiceByRef: { operationRef: '#/paths/~1invoices~1{invoice_id}/get', parameters: { 'path.invoice_id': '$response.body#/id' } },
                Lines: { $ref: '#/components/links/InvoiceLines' },
                Owner: { operationRef: '#/paths/~1users~1{name}~0profile/get', parameters: { name: '$request.body#/owner' } },
                // Another document's operation cannot be addressed by key: left out.
                Elsewhere: { operationRef: 'https://other.test/openapi.json#/paths/~1x/get' },
              },
            },
            default: { description: 'error', links: { Retry: { operationId: 'createInvoice' } } },
          },
        },
      },
      '/invoices/{invoice_id}': {
        get: { operationId: 'getInvoice', responses: { '200': ok } },
        delete: { operationId: 'deleteInvoice', security: [], responses: { '204': ok } },
      },
      '/invoices/{invoice_id}/lines': { get: { operationId: 'listLines', responses: { '200': ok } } },
      '/users/{name}~profile': { get: { operationId: 'getProfile', security: [{}, { bearer: [] }], responses: { '200': ok } } },
      '/health': { get: { operationId: 'health', security: [], responses: { '200': ok } } },
    },
  };
}

const EXPECTED_LINKS = [
  { status: '201', operationId: 'getInvoice', parameters: { invoice_id: '$response.body#/id' } },
  { status: '201', operationKey: 'GET /invoices/{invoice_id}', parameters: { 'path.invoice_id': '$response.body#/id' } },
  { status: '201', operationKey: 'GET /invoices/{invoice_id}/lines', parameters: { invoice_id: '$response.header.Location', limit: '10' } },
  { status: '201', operationKey: 'GET /users/{name}~profile', parameters: { name: '$request.body#/owner' } },
  { status: 'default', operationId: 'createInvoice', parameters: {} },
];

describe.each(['3.0.3', '3.1.0'])('OpenAPI %s', (version) => {
  it('parses response links by operationId, by operationRef (JSON pointer decoded) and through components.links', async () => {
    const model = await modelOf(JSON.stringify(invoicesDoc(version)));
    expect(model.specVersion).toBe(version);
    expect(op(model, 'POST /invoices').links).toEqual(EXPECTED_LINKS);
    for (const other of model.operations.filter((o) => o.key !== 'POST /invoices')) expect(other.links, other.key).toEqual([]);
  });

  it('resolves a $ref link itself when the document was not dereferenced', () => {
    const model = buildModel(invoicesDoc(version), TARGET);
    expect(op(model, 'POST /invoices').links).toEqual(EXPECTED_LINKS);
  });

  it('marks operations that declare `security: []` as public by design, and only those', async () => {
    const model = await modelOf(JSON.stringify(invoicesDoc(version)));
    const flags = (key: string) => ({ secured: op(model, key).secured, publicByDesign: op(model, key).publicByDesign });
    expect(flags('GET /health')).toEqual({ secured: false, publicByDesign: true });
    expect(flags('DELETE /invoices/{invoice_id}')).toEqual({ secured: false, publicByDesign: true });
    // Inherits the global requirement.
    expect(flags('GET /invoices/{invoice_id}')).toEqual({ secured: true, publicByDesign: false });
    // Optional authentication ({} among the alternatives) is neither secured nor declared public.
    expect(flags('GET /users/{name}~profile')).toEqual({ secured: false, publicByDesign: false });
  });
});

describe('Swagger 2.0 and OpenAPI 3 versions of one API', () => {
  const fixture = (name: string) => readFileSync(new URL(`../../fixtures/specs/${name}`, import.meta.url), 'utf8');

  /** collectionFormat is 2.0's spelling of 3.0's style/explode: the one field that cannot match. */
  const comparable = (model: ApiModel) =>
    model.operations.map((o) => ({ ...o, params: o.params.map(({ schema: { collectionFormat: _format, ...schema }, ...p }) => ({ ...p, schema })) }));

  it('build the same operations, server path and schemes', async () => {
    const swagger2 = await modelOf(fixture('petstore-swagger2.yaml'));
    const openapi3 = await modelOf(fixture('petstore-openapi3.yaml'));
    expect(swagger2.specVersion).toBe('2.0');
    expect(openapi3.specVersion).toBe('3.0.3');
    expect(swagger2.operations.map((o) => o.key)).toEqual(['POST /pet', 'GET /pet/findByStatus', 'GET /pet/{petId}', 'POST /pet/{petId}', 'GET /user/login']);
    expect(comparable(openapi3)).toEqual(comparable(swagger2));
    const { operations: _2, specVersion: _v2, ...head2 } = swagger2;
    const { operations: _3, specVersion: _v3, ...head3 } = openapi3;
    expect(head3).toEqual(head2);
    expect(head2).toMatchObject({ serverPath: '/v2', serverSchemes: ['https', 'http'] });
    // A sample of what "the same" covers: the body, form fields and a dereferenced response schema.
    expect(op(swagger2, 'POST /pet').body).toMatchObject({ contentType: 'application/json', required: true, schema: { required: ['name', 'photoUrls'] } });
    expect(op(swagger2, 'POST /pet/{petId}').body).toMatchObject({
      contentType: 'application/x-www-form-urlencoded',
      schema: { properties: { name: { type: 'string' } } },
    });
    expect(op(openapi3, 'GET /pet/{petId}').responses['200'].schema).toMatchObject({ properties: { category: { properties: { name: { type: 'string' } } } } });
  });

  it('Swagger 2.0 has no links, and `security: []` is public by design there too', async () => {
    const doc = {
      swagger: '2.0',
      info: { title: 't', version: '1' },
      securityDefinitions: { key: { type: 'apiKey', in: 'header', name: 'x-key' } },
      security: [{ key: [] }],
      paths: {
        '/status': { get: { security: [], responses: { '200': { description: 'ok' } } } },
        '/items': { get: { responses: { '200': { description: 'ok', schema: { type: 'array' } } } } },
      },
    };
    const model = await modelOf(JSON.stringify(doc));
    expect(model.operations.map((o) => [o.key, o.secured, o.publicByDesign, o.links])).toEqual([
      ['GET /status', false, true, []],
      ['GET /items', true, false, []],
    ]);
  });
});
