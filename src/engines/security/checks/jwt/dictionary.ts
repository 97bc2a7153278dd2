/** The weak-secret dictionary (secrets.txt beside this module; README.md says where it comes from). */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * Where secrets.txt may be: beside this module (running from src), else at the same place in the
 * source tree (running from dist: `tsc` copies no data files, and the service runs from its checkout).
 */
export function dictionaryLocations(moduleUrl: string = import.meta.url): string[] {
  const beside = fileURLToPath(new URL('./secrets.txt', moduleUrl));
  const inSource = beside.replace(/([/\\])dist([/\\])(?![\s\S]*[/\\]dist[/\\])/, '$1src$2');
  return inSource === beside ? [beside] : [beside, inSource];
}

let loading: Promise<Buffer> | undefined;

/** The dictionary's bytes, read once per process. Rejects when no location has it. */
export function loadDictionary(): Promise<Buffer> {
  loading ??= (async () => {
    const tried: string[] = [];
    for (const path of dictionaryLocations()) {
      try {
        return await readFile(path);
      } catch {
        tried.push(path);
      }
    }
    loading = undefined;
    throw new Error(`the JWT secret dictionary is missing (looked at ${tried.join(', ')})`);
  })();
  return loading;
}
