/**
 * The typed client (src/api-client/openapi.generated.ts) is what the live document gives, names every
 * operation, and binds the CLI and the dashboard: a change to the description breaks their type-check.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_FILE, clientSource } from '../../scripts/generate-client.js';
import { call, startServer, type TestServer } from '../helpers/server.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The first line where two texts differ, for a readable failure. */
function firstDifference(committed: string, live: string): string {
  const [a, b] = [committed.split('\n'), live.split('\n')];
  const at = a.findIndex((line, i) => line !== b[i]);
  const line = at === -1 ? a.length : at;
  return `line ${line + 1}: committed ${JSON.stringify(a[line] ?? '<end of file>')}, live ${JSON.stringify(b[line] ?? '<end of file>')}`;
}

/** The member names of an exported interface of a TypeScript source. */
function interfaceMembers(source: string, name: string): string[] {
  const file = ts.createSourceFile('client.ts', source, ts.ScriptTarget.Latest, false);
  const found = file.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
  return (found?.members ?? []).map((m) => (m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) ? m.name.text : '?'));
}

/**
 * The semantic errors of a TypeScript project (its tsconfig, or only `roots` with its options) when the
 * generated client reads `generated` instead of the committed file.
 */
function typeErrorsWith(tsconfig: string, generated: string, roots?: string[]): Array<{ file: string; message: string }> {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, tsconfig),
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error(`cannot read ${tsconfig}`);
  const host = ts.createCompilerHost(parsed.options);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => (resolve(file) === CLIENT_FILE ? generated : readFile(file));
  const program = ts.createProgram({ rootNames: roots?.map((r) => join(ROOT, r)) ?? parsed.fileNames, options: parsed.options, host });
  return program
    .getSemanticDiagnostics()
    .map((d) => ({ file: d.file ? relative(ROOT, d.file.fileName) : '', message: ts.flattenDiagnosticMessageText(d.messageText, '\n') }));
}

describe('typed API client', () => {
  let server: TestServer;
  let doc: any;
  const committed = readFileSync(CLIENT_FILE, 'utf8');

  beforeAll(async () => {
    // With GET /metrics served (a metrics token), as scripts/openapi-document.ts builds the document.
    server = await startServer({ env: { VIGIL_METRICS_TOKEN: 'document-only-metrics-token' } });
    doc = (await call(`${server.api}/openapi.json`)).body;
  });
  afterAll(async () => server?.stop());

  it('is what the live /api/v1/openapi.json gives (else: run npm run generate:client)', async () => {
    const live = await clientSource(doc);
    const same = live === committed;
    expect(
      same,
      same
        ? ''
        : `src/api-client/openapi.generated.ts is not what /api/v1/openapi.json gives (${firstDifference(committed, live)}): run npm run generate:client and commit the result`,
    ).toBe(true);
  }, 120_000);

  it('tells a document that changed apart from the committed client', async () => {
    const changed = structuredClone(doc);
    changed.paths['/api/v1/scan/{id}/results'].get.summary = 'A summary the committed client does not have';
    expect(await clientSource(changed)).not.toBe(committed);
  }, 120_000);

  it('names every operation of the document with a unique operationId, and the client exposes each one in `operations`', () => {
    const ids: string[] = [];
    const unnamed: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        if (typeof op.operationId === 'string' && op.operationId) ids.push(op.operationId);
        else unnamed.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(unnamed).toEqual([]);
    expect(ids.length).toBeGreaterThan(40);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(interfaceMembers(committed, 'operations').sort()).toEqual([...ids].sort());
    // Each path's method refers to its named operation, so generated method names are stable.
    expect(committed).toContain('get: operations["getScanResults"];');
  });

  it('breaks the type-check of the CLI and of the dashboard when the description renames a field they read', () => {
    const schemaAt = committed.indexOf('        ScanResults: {');
    const fieldAt = committed.indexOf('severity_counts?:', schemaAt);
    expect(schemaAt).toBeGreaterThan(0);
    expect(fieldAt).toBeGreaterThan(schemaAt);
    const renamed = `${committed.slice(0, fieldAt)}severity_totals?:${committed.slice(fieldAt + 'severity_counts?:'.length)}`;

    // Every error is in a file that reads the field (npm run typecheck keeps the committed client error-free).
    const readsField = (e: { file: string }) => readFileSync(join(ROOT, e.file), 'utf8').includes('severity_counts');

    const cli = typeErrorsWith('tsconfig.json', renamed, ['src/cli/commands/client-commands.ts', 'src/cli/commands/scan.ts']).filter((e) =>
      e.file.startsWith('src/cli/'),
    );
    expect(cli.length).toBeGreaterThan(0);
    expect(cli.filter((e) => !readsField(e))).toEqual([]);
    expect(new Set(cli.map((e) => e.file))).toEqual(new Set(['src/cli/commands/client-commands.ts', 'src/cli/scan/summary.ts']));

    const web = typeErrorsWith('web/tsconfig.json', renamed).filter((e) => e.file.startsWith('web/src/'));
    expect(web.length).toBeGreaterThan(0);
    expect(web.filter((e) => !readsField(e))).toEqual([]);
    expect(new Set(web.map((e) => e.file))).toContain('web/src/pages/trends.tsx');
  }, 300_000);
});
