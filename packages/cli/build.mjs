#!/usr/bin/env node
// Builds the client package: the client's entry, ../../src/cli/main.ts (scan, scans, baselines,
// init, usage, billing, live), bundled with its few libraries into one file, dist/vigil.js, so the
// package has no runtime dependencies. The server's commands are not in it (they are src/operator's),
// and the build fails if the bundle reaches the server, the engines, the store, the browser driver or
// the payment SDK (see SERVER_ONLY below).
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));

/** What must never be in the client: npm packages of the server, and the server's folders of src/ (the operator's commands included). */
export const SERVER_ONLY = {
  packages: ['fastify', '@fastify/', 'fastify-plugin', 'playwright-core', 'playwright', '@axe-core/', 'axe-core', 'stripe', 'better-sqlite3', 'pg', 'ioredis', 'kysely', 'pino', 'pixelmatch', 'pngjs', '@apidevtools/', 'redoc', 'rate-limiter-flexible', 'undici', '@sinclair/typebox', 'lighthouse'],
  sources: ['src/app/', 'src/http/', 'src/queue/', 'src/store/', 'src/engines/', 'src/scans/', 'src/billing/', 'src/events/', 'src/llm/', 'src/net/', 'src/sso/', 'src/observability/', 'src/operator/'],
};

/** The bundle's inputs that belong to the server (empty when the client is clean). */
export function serverInputs(metafile) {
  return Object.keys(metafile.inputs).filter((input) => {
    const npm = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
    if (npm) return SERVER_ONLY.packages.some((p) => (p.endsWith('/') ? npm.startsWith(p) : npm === p));
    return SERVER_ONLY.sources.some((s) => input.startsWith(s));
  });
}

export async function buildClient({ outfile = join(here, 'dist/vigil.js') } = {}) {
  mkdirSync(dirname(outfile), { recursive: true });
  // Written beside and renamed into place: a build running at the same time (tests pack in
  // parallel) never lets `npm pack` read a half-written file.
  const partial = `${outfile}.${process.pid}.partial`;
  const result = await build({
    entryPoints: [join(root, 'src/cli/main.ts')],
    outfile: partial,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    metafile: true,
    absWorkingDir: root,
    logLevel: 'warning',
    // The client's version is this package's (src/cli/version.ts); the bundle reads no package.json.
    define: { VIGIL_CLI_VERSION: JSON.stringify(pkg.version) },
    // ws loads these native speed-ups when present and works without them.
    external: ['bufferutil', 'utf-8-validate'],
    // CommonJS libraries bundled into an ES module call require() for Node's built-ins.
    banner: { js: "import { createRequire as __vigilCreateRequire } from 'node:module';\nconst require = __vigilCreateRequire(import.meta.url);" },
  });
  const leaked = serverInputs(result.metafile);
  if (leaked.length) {
    rmSync(partial, { force: true });
    throw new Error(`the client bundle reaches server-only code; make the client (src/cli) stop importing it:\n  ${leaked.join('\n  ')}`);
  }
  chmodSync(partial, 0o755);
  renameSync(partial, outfile);
  writeFileSync(`${partial}.json`, JSON.stringify(result.metafile));
  renameSync(`${partial}.json`, join(dirname(outfile), 'meta.json'));
  return { outfile, metafile: result.metafile };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const { outfile } = await buildClient();
    process.stderr.write(`built ${relative(process.cwd(), outfile)}\n`);
  } catch (error) {
    process.stderr.write(`packages/cli build failed: ${error.message}\n`);
    process.exit(1);
  }
}
