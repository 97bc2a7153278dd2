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
  cli: 9,
  app: 8,
  http: 7,
  queue: 7,
  billing: 6,
  scans: 6,
  notifications: 5,
  events: 4,
  store: 3,
  engines: 2,
  reports: 2,
  net: 1,
  llm: 1,
  domain: 0,
};

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
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
    const folders = new Set(files.map((f) => relative(SRC, f)).filter((f) => f.includes('/')).map((f) => f.split('/')[0] ?? ''));
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
