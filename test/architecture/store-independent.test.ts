import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { STORE_INDEPENDENT } from '../../vitest.config.js';

/**
 * The distributed test run (DATABASE_URL and REDIS_URL set) leaves the unit tests and test/engines to
 * the embedded run (vitest.config.ts, STORE_INDEPENDENT): those tests must never reach what the two
 * configurations change. Following each test file's imports through the test tree, none may reach the helpers that
 * start a Vigil server, worker or store from the environment, nor import the store, queue, event bus
 * or app assembly directly.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FORBIDDEN_HELPERS = ['test/helpers/server.ts', 'test/helpers/test-worker.ts'];
const FORBIDDEN_SOURCES = /^src\/(store|queue|events)\/|^src\/app\/vigil\.ts$/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specifiers.map((s) => {
    const target = resolve(dirname(file), s);
    const ts = target.replace(/\.js$/, '.ts');
    return existsSync(ts) ? ts : existsSync(`${target}.ts`) ? `${target}.ts` : target;
  });
}

/** What a test file reaches: every test-tree file transitively, and the first file outside it. */
function reached(start: string): Set<string> {
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (relative(ROOT, file).startsWith('test/') && file.endsWith('.ts') && existsSync(file)) queue.push(...relativeImports(file));
  }
  return seen;
}

describe('the tests the distributed run leaves out never open what it changes', () => {
  const files = STORE_INDEPENDENT.flatMap((dir) => testFiles(join(ROOT, dir)));

  it('finds them', () => {
    expect(files.length).toBeGreaterThan(60);
  });

  it.each(files.map((f) => [relative(ROOT, f)]))('%s', (file) => {
    const offending = [...reached(join(ROOT, file))].map((f) => relative(ROOT, f)).filter((f) => FORBIDDEN_HELPERS.includes(f) || FORBIDDEN_SOURCES.test(f));
    expect(offending).toEqual([]);
  });
});
