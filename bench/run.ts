/**
 * `npm run bench`: runs every `bench/*.bench.ts` (or only those whose name contains an argument).
 * Each benchmark module exports `run(): Promise<void>` and prints its own figures next to a
 * baseline it measures in the same run, so the ratios mean something on a shared, noisy machine.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();

let failed = 0;
for (const file of files) {
  process.stdout.write(`\n=== ${file.replace('.bench.ts', '')} ===\n`);
  try {
    const mod = (await import(pathToFileURL(join(here, file)).href)) as { run(): Promise<void> };
    await mod.run();
  } catch (error) {
    failed += 1;
    process.stdout.write(`benchmark ${file} failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  }
}
process.stdout.write(`\n${files.length - failed} benchmark(s) ran, ${failed} failed\n`);
process.exit(failed > 0 ? 1 : 0);
