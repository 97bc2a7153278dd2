import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layers of src/, top to bottom (docs/architecture.md draws them). A file may import from its own folder
 * or from a folder of a lower rank; folders of the same rank do not import each other.
 */
export const LAYERS: Record<string, number> = {
  // The server install's `vigil`: the operator's commands (serve, tenants, keys) beside the client's.
  operator: 10,
  // The client (what packages/cli ships): see CLIENT_SOURCES below for what it may reach.
  cli: 9,
  app: 8,
  http: 7,
  queue: 7,
  billing: 6,
  scans: 6,
  sso: 6,
  notifications: 5,
  events: 4,
  store: 3,
  engines: 2,
  reports: 2,
  net: 1,
  llm: 1,
  observability: 1,
  domain: 0,
  // The public API as its clients (the CLI, the dashboard) see it: generated types and the path helper.
  'api-client': 0,
};

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const WEB = resolve(SRC, '../web/src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every relative import of a file (static, type-only, re-exports and dynamic `import()` with a literal). */
function relativeImports(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((f) => f.fileName).filter((name) => name.startsWith('.'));
}

const folderOf = (path: string): string => relative(SRC, path).split(/[\\/]/)[0] ?? '';

export interface LayerViolation {
  from: string;
  to: string;
  why: string;
}

/** Judges imports given as absolute paths of the importing file and of the imported module. */
export function layerViolations(imports: Array<{ file: string; target: string }>): LayerViolation[] {
  const violations: LayerViolation[] = [];
  for (const { file, target } of imports) {
    const [from, to] = [folderOf(file), folderOf(target)];
    if (to === from || to.startsWith('..')) continue;
    const [rankFrom, rankTo] = [LAYERS[from], LAYERS[to]];
    const where = { from: relative(SRC, file), to: relative(SRC, target) };
    if (rankFrom === undefined || rankTo === undefined) violations.push({ ...where, why: `folder ${rankFrom === undefined ? from : to}/ has no layer` });
    else if (rankTo > rankFrom) violations.push({ ...where, why: `${from}/ (layer ${rankFrom}) imports upward from ${to}/ (layer ${rankTo})` });
    else if (rankTo === rankFrom) violations.push({ ...where, why: `${from}/ and ${to}/ share layer ${rankFrom} and must not import each other` });
  }
  return violations;
}

const importsOf = (files: string[]) => files.flatMap((file) => relativeImports(file).map((spec) => ({ file, target: resolve(dirname(file), spec) })));

describe('layering of src/', () => {
  const files = sourceFiles(SRC);

  it('reads every source file and finds its imports, type-only and dynamic ones included', () => {
    expect(files.length).toBeGreaterThan(100);
    const targets = importsOf([join(SRC, 'app/vigil.ts')]).map((i) => relative(SRC, i.target));
    expect(targets).toContain('http/server.js');
  });

  it('gives every folder of src/ a layer', () => {
    const folders = new Set(
      files
        .map((f) => relative(SRC, f))
        .filter((f) => f.includes('/'))
        .map((f) => f.split('/')[0] ?? ''),
    );
    expect([...folders].filter((f) => LAYERS[f] === undefined)).toEqual([]);
  });

  it('has no import from a lower layer to a higher one, nor between folders of one layer', () => {
    expect(layerViolations(importsOf(files)).map((v) => `${v.from} -> ${v.to}: ${v.why}`)).toEqual([]);
  });

  it('flags an upward import, an import between peers and an unlayered folder', () => {
    const at = (path: string) => join(SRC, path);
    const found = layerViolations([
      { file: at('domain/scan.ts'), target: at('store/scans.js') },
      { file: at('http/server.ts'), target: at('queue/worker.js') },
      { file: at('http/server.ts'), target: at('gadgets/thing.js') },
      { file: at('http/server.ts'), target: at('store/scans.js') },
      { file: at('http/server.ts'), target: at('http/errors.js') },
    ]);
    expect(found.map((v) => v.why)).toEqual([
      'domain/ (layer 0) imports upward from store/ (layer 3)',
      'http/ and queue/ share layer 7 and must not import each other',
      'folder gadgets/ has no layer',
    ]);
  });
});

/** One import of a module with what it brings in: `typeOnly` when nothing of it exists at run time. */
export interface ModuleImport {
  file: string;
  target: string;
  typeOnly: boolean;
}

/** Every relative import and re-export of a file, with whether it is type-only (`import type`, or every name marked `type`). */
export function moduleImports(file: string, text = readFileSync(file, 'utf8')): ModuleImport[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: ModuleImport[] = [];
  const add = (spec: ts.Expression | undefined, typeOnly: boolean) => {
    if (spec && ts.isStringLiteral(spec) && spec.text.startsWith('.')) found.push({ file, target: resolve(dirname(file), spec.text), typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly = !!clause && (clause.isTypeOnly || (!clause.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier, typeOnly);
    } else if (ts.isExportDeclaration(node)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined;
      add(node.moduleSpecifier, node.isTypeOnly || (!!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal as ts.Expression, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The source file an import specifier names (`./x.js` is `./x.ts` or `./x.tsx`; a folder is its index). */
function sourceOf(target: string, known: Set<string>): string | undefined {
  const base = target.replace(/\.(m?js|jsx)$/, '');
  return [target, `${base}.ts`, `${base}.tsx`, `${base}.mts`, join(target, 'index.ts')].find((c) => known.has(c));
}

/**
 * The import circles among the given files (type-only imports count: a circle of types is still two
 * modules that cannot be understood apart). Each circle is given once, as the files of one strongly
 * connected component (Tarjan), sorted.
 */
export function importCircles(imports: ModuleImport[], files: string[]): string[][] {
  const known = new Set(files);
  const edges = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const { file, target } of imports) {
    const to = sourceOf(target, known);
    if (to && to !== file) edges.get(file)?.push(to);
  }
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) circles.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) connect(file);
  return circles;
}

/**
 * Folders of src/ the dashboard may take types from (it is a client of the API, never a part of the server):
 * the API's bodies come from the generated description in api-client/, not from the server's schemas.
 */
const WEB_TYPE_SOURCES = ['api-client', 'domain', 'events'];
/** Folders whose browser-safe modules the dashboard may import values from. */
const WEB_VALUE_SOURCES = ['api-client', 'domain'];

/**
 * The dashboard's imports from outside web/: type-only from api-client, domain and events; a value only
 * from a browser-safe api-client or domain module (one that imports nothing but other browser-safe modules
 * of those folders: no node: built-in, no package), such as the path helper and the metric ratings.
 */
export function webViolations(imports: ModuleImport[], browserSafeModule: (path: string) => boolean): string[] {
  const problems: string[] = [];
  for (const { file, target, typeOnly } of imports) {
    if (!relative(WEB, target).startsWith('..')) continue;
    const inSrc = relative(SRC, target);
    const where = `${relative(resolve(SRC, '..'), file)} -> ${relative(resolve(SRC, '..'), target)}`;
    if (inSrc.startsWith('..')) problems.push(`${where}: imports from outside web/ and src/`);
    else if (!WEB_TYPE_SOURCES.some((folder) => inSrc.startsWith(`${folder}/`)))
      problems.push(`${where}: the dashboard may import only from ${WEB_TYPE_SOURCES.map((f) => `src/${f}`).join(', ')}`);
    else if (!typeOnly && !(WEB_VALUE_SOURCES.some((folder) => inSrc.startsWith(`${folder}/`)) && browserSafeModule(target)))
      problems.push(`${where}: a value import (only types, or a browser-safe api-client or domain module)`);
  }
  return problems;
}

describe('import circles and the dashboard', () => {
  const srcFiles = sourceFiles(SRC);
  const webFiles = sourceFiles(WEB);
  const all = [...srcFiles, ...webFiles];
  const imports = all.flatMap((file) => moduleImports(file));
  const known = new Set(all);

  const browserSafe = (target: string, seen = new Set<string>()): boolean => {
    const file = sourceOf(target, known);
    if (!file || !WEB_VALUE_SOURCES.some((folder) => relative(SRC, file).startsWith(`${folder}/`))) return false;
    if (seen.has(file)) return true;
    seen.add(file);
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    return info.importedFiles.every((i) => i.fileName.startsWith('.') && browserSafe(resolve(dirname(file), i.fileName), seen));
  };

  it('reads the dashboard and tells type-only imports from value imports', () => {
    expect(webFiles.length).toBeGreaterThan(10);
    const found = moduleImports(
      join(WEB, 'x.ts'),
      "import type { A } from './a.js';\nimport { type B, type C } from './b.js';\nimport { D, type E } from './d.js';\nexport type { F } from './f.js';\nexport * from './g.js';\nconst h = await import('./h.js');\ntype I = import('./i.js').I;\n",
    );
    expect(found.map((i) => `${relative(WEB, i.target)}:${i.typeOnly}`)).toEqual([
      'a.js:true',
      'b.js:true',
      'd.js:false',
      'f.js:true',
      'g.js:false',
      'h.js:false',
      'i.js:true',
    ]);
  });

  it('has no import circle in src/ or web/src (type-only imports count)', () => {
    const circles = importCircles(imports, all).map((c) => c.map((f) => relative(resolve(SRC, '..'), f)).join(' <-> '));
    expect(circles).toEqual([]);
  });

  it('finds a circle, of types too, and only once', () => {
    const at = (p: string) => join(SRC, p);
    const files = [at('a/x.ts'), at('a/y.ts'), at('a/z.ts'), at('a/w.tsx')];
    const circles = importCircles(
      [
        { file: at('a/x.ts'), target: at('a/y.js'), typeOnly: true },
        { file: at('a/y.ts'), target: at('a/z.js'), typeOnly: false },
        { file: at('a/z.ts'), target: at('a/x.js'), typeOnly: true },
        { file: at('a/z.ts'), target: at('a/w.js'), typeOnly: false },
      ],
      files,
    );
    expect(circles).toEqual([[at('a/x.ts'), at('a/y.ts'), at('a/z.ts')]]);
  });

  it('lets the dashboard import types from the generated API client, domain and events, and values only from browser-safe api-client and domain modules', () => {
    expect(
      webViolations(
        imports.filter((i) => i.file.startsWith(WEB)),
        (t) => browserSafe(t),
      ),
    ).toEqual([]);
  });

  it("flags a dashboard import of an engine, of the server's schemas (types too), and a value from a domain module that needs Node", () => {
    const file = join(WEB, 'pages/x.tsx');
    const problems = webViolations(
      [
        { file, target: join(SRC, 'engines/functional/performance/score.js'), typeOnly: false },
        { file, target: join(SRC, 'http/schemas/scans.js'), typeOnly: false },
        { file, target: join(SRC, 'http/schemas/scans.js'), typeOnly: true },
        { file, target: join(SRC, 'domain/ids.js'), typeOnly: false },
        { file, target: join(SRC, 'domain/metric-ratings.js'), typeOnly: false },
        { file, target: join(SRC, 'api-client/calls.js'), typeOnly: false },
        { file, target: join(SRC, 'api-client/openapi.generated.js'), typeOnly: true },
        { file, target: join(WEB, 'api.js'), typeOnly: false },
      ],
      (t) => browserSafe(t),
    );
    expect(problems.map((p) => p.split(': ')[1])).toEqual([
      'the dashboard may import only from src/api-client, src/domain, src/events',
      'the dashboard may import only from src/api-client, src/domain, src/events',
      'the dashboard may import only from src/api-client, src/domain, src/events',
      'a value import (only types, or a browser-safe api-client or domain module)',
    ]);
  });
});

/**
 * Folders of src/ the client (src/cli, what the client package bundles) may load: its own and the pure
 * ones it shares with the server. Nothing of the server (app, http, queue, store, engines, the operator's
 * commands...) may be reached from it, directly or through another module.
 */
export const CLIENT_SOURCES = ['cli', 'api-client', 'domain', 'reports', 'notifications'];
/** Server folders the client may take types from (nothing of them is loaded at run time). */
const CLIENT_TYPE_SOURCES = [...CLIENT_SOURCES, 'http/schemas'];

const inFolders = (path: string, folders: string[]) => folders.some((folder) => relative(SRC, path).startsWith(`${folder}/`));

/**
 * The imports by which the client reaches outside CLIENT_SOURCES: every module the client's files load
 * (value imports, followed to the end) may import values only from CLIENT_SOURCES, types also from http/schemas.
 */
export function clientViolations(imports: ModuleImport[], files: string[]): string[] {
  const known = new Set(files);
  const byFile = new Map<string, ModuleImport[]>();
  for (const i of imports) byFile.set(i.file, [...(byFile.get(i.file) ?? []), i]);
  const problems: string[] = [];
  const loaded = new Set<string>();
  const load = (file: string): void => {
    if (loaded.has(file)) return;
    loaded.add(file);
    for (const { target, typeOnly } of byFile.get(file) ?? []) {
      const to = sourceOf(target, known) ?? target;
      const where = `${relative(SRC, file)} -> ${relative(SRC, to)}`;
      if (!inFolders(to, typeOnly ? CLIENT_TYPE_SOURCES : CLIENT_SOURCES))
        problems.push(
          `${where}: the client may import ${typeOnly ? 'types' : 'values'} only from ${(typeOnly ? CLIENT_TYPE_SOURCES : CLIENT_SOURCES).map((f) => `src/${f}`).join(', ')}`,
        );
      else if (!typeOnly && known.has(to)) load(to);
    }
  };
  for (const file of files) if (inFolders(file, ['cli'])) load(file);
  return problems;
}

describe('the client (src/cli) apart from the server', () => {
  const files = sourceFiles(SRC);
  const imports = files.flatMap((file) => moduleImports(file));

  it('reaches no server folder, directly or through the modules it loads', () => {
    expect(files.some((f) => inFolders(f, ['cli']))).toBe(true);
    expect(clientViolations(imports, files)).toEqual([]);
  });

  it("flags a client import of the server, one through a shared module, and a value from the server's schemas", () => {
    const at = (p: string) => join(SRC, p);
    const synthetic = [at('cli/commands/x.ts'), at('cli/y.ts'), at('domain/z.ts'), at('store/w.ts'), at('http/schemas/s.ts'), at('operator/serve.ts')];
    const problems = clientViolations(
      [
        { file: at('cli/commands/x.ts'), target: at('operator/serve.js'), typeOnly: false },
        { file: at('cli/commands/x.ts'), target: at('http/schemas/s.js'), typeOnly: true },
        { file: at('cli/y.ts'), target: at('domain/z.js'), typeOnly: false },
        { file: at('domain/z.ts'), target: at('store/w.js'), typeOnly: false },
        { file: at('cli/y.ts'), target: at('http/schemas/s.js'), typeOnly: false },
        { file: at('cli/y.ts'), target: at('store/w.js'), typeOnly: true },
        // Not loaded by the client: the operator may import the store.
        { file: at('operator/serve.ts'), target: at('store/w.js'), typeOnly: false },
      ],
      synthetic,
    );
    expect(problems.map((p) => p.split(':')[0])).toEqual([
      'cli/commands/x.ts -> operator/serve.ts',
      'domain/z.ts -> store/w.ts',
      'cli/y.ts -> http/schemas/s.ts',
      'cli/y.ts -> store/w.ts',
    ]);
  });
});
