/**
 * The OpenAPI document the server serves at /api/v1/openapi.json, built in-process without listening:
 * for the linters (npm run lint:openapi) and the typed client (npm run generate:client).
 * Usage: node --import tsx scripts/openapi-document.ts [out.json]   (default openapi.json)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/app/config.js';
import { createLogger } from '../src/app/logger.js';
import { createVigil } from '../src/app/vigil.js';

export async function servedOpenApiDocument(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-openapi-'));
  try {
    // A metrics token puts GET /metrics on the server, and so in the document clients and linters read.
    const config = loadConfig({
      VIGIL_DATA_DIR: dataDir,
      VIGIL_ROLE: 'api',
      VIGIL_LOG_LEVEL: 'silent',
      PORT: '0',
      VIGIL_METRICS_TOKEN: 'document-only-metrics-token',
    });
    const vigil = await createVigil(config, { logger: createLogger('silent'), announce: () => {} });
    try {
      await vigil.http!.ready();
      // Through JSON, as a client receives it from /api/v1/openapi.json.
      return JSON.parse(JSON.stringify(vigil.http!.swagger())) as Record<string, unknown>;
    } finally {
      await vigil.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? 'openapi.json';
  const doc = await servedOpenApiDocument();
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
}
