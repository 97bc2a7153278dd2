#!/usr/bin/env node
// Builds the client package: the client commands of ../../src/cli (scan, scans, usage, billing,
// live) bundled with their few libraries into one file, dist/vigil.js, so the package has no
// runtime dependencies. The server commands (serve, tenants, keys) are replaced by a stub that
// says where they live, and the build fails if the bundle reaches the server, the engines, the
// store, the browser driver or the payment SDK (see SERVER_ONLY below).
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
const usageError = join(root, 'src/cli/usage-error.ts');

const serverOnly = (command) =>
  `async (args) => { throw new UsageError(${JSON.stringify(`"vigil ${command}" is a server command: it is not in ${pkg.name}, the client. Run it where Vigil runs (see docs/deploy.md).`)}); }`;

/** Modules of src/ the client never needs, replaced by these sources (resolved from src/cli). */
const STUBS = {
  'src/cli/commands/serve.ts': `import { UsageError } from ${JSON.stringify(usageError)};\nexport const serveCommand = ${serverOnly('serve')};\n`,
  'src/cli/commands/operator.ts': `import { UsageError } from ${JSON.stringify(usageError)};\nexport const tenantsCommand = ${serverOnly('tenants')};\nexport const keysCommand = ${serverOnly('keys')};\n`,
  // run.ts only tells a server configuration error apart; the client never loads the server's configuration.
  'src/app/config.ts': 'export class ConfigError extends Error {}\n',
  // The version of this package (the server's reads the root package.json, which is not shipped).
  'src/app/version.ts': `export const VERSION = ${JSON.stringify(pkg.version)};\n`,
};

/** What must never be in the client: npm packages of the server, and src/ folders above the CLI's needs. */
export const SERVER_ONLY = {
  packages: ['fastify', '@fastify/', 'fastify-plugin', 'playwright-core', 'playwright', '@axe-core/', 'axe-core', 'stripe', 'better-sqlite3', 'pg', 'ioredis', 'kysely', 'pino', 'pixelmatch', 'pngjs', '@apidevtools/', 'redoc', 'rate-limiter-flexible', 'undici', '@sinclair/typebox', 'lighthouse'],
  sources: ['src/app/', 'src/http/', 'src/queue/', 'src/store/', 'src/engines/', 'src/scans/', 'src/billing/', 'src/events/', 'src/llm/', 'src/net/'],
};

const stubs = {
  name: 'vigil-client-stubs',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      const target = relative(root, resolve(args.resolveDir, args.path)).replace(/\.js$/, '.ts');
      if (target in STUBS) return { path: target, namespace: 'vigil-stub' };
      return undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'vigil-stub' }, (args) => ({ contents: STUBS[args.path], loader: 'ts', resolveDir: root }));
  },
};

/** The bundle's inputs that belong to the server (empty when the client is clean). */
export function serverInputs(metafile) {
  return Object.keys(metafile.inputs).filter((input) => {
    if (input.startsWith('vigil-stub:')) return false;
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
    plugins: [stubs],
    // ws loads these native speed-ups when present and works without them.
    external: ['bufferutil', 'utf-8-validate'],
    // CommonJS libraries bundled into an ES module call require() for Node's built-ins.
    banner: { js: "import { createRequire as __vigilCreateRequire } from 'node:module';\nconst require = __vigilCreateRequire(import.meta.url);" },
  });
  const leaked = serverInputs(result.metafile);
  if (leaked.length) {
    rmSync(partial, { force: true });
    throw new Error(`the client bundle reaches server-only code; make the client commands stop importing it (or stub it in packages/cli/build.mjs):\n  ${leaked.join('\n  ')}`);
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
