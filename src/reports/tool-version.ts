/**
 * Vigil's version as reports name their tool (SARIF's driver): the nearest package.json above this module
 * (the repository's for the server, the client package's in the CLI bundle).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;
export function toolVersion(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i += 1) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { version?: string };
        if (pkg.version) return (cached = pkg.version);
      } catch {
        // keep looking
      }
    }
    dir = dirname(dir);
  }
  return (cached = '0.0.0');
}
