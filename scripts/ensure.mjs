#!/usr/bin/env node
// Makes `npm start`, `npm test` and `npm run bench` work on a fresh machine: installs the locked
// npm packages when they are missing or stale, builds the TypeScript and the web dashboard, and (for "chromium")
// installs Debian's Chromium when no browser is present. Uses only Node built-ins.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const steps = new Set(process.argv.slice(2));

function run(cmd) {
  console.error(`[ensure] ${cmd}`);
  try {
    execSync(cmd, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  } catch {
    console.error(`[ensure] "${cmd}" failed (see above)`);
    process.exit(1);
  }
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function newestIn(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestIn(path) : mtime(path));
  }
  return newest;
}

const installedMarker = join(root, 'node_modules/.package-lock.json');
if (!existsSync(installedMarker) || mtime(join(root, 'package-lock.json')) > mtime(installedMarker)) {
  run('npm ci --no-audit --no-fund');
}

if (steps.has('build')) {
  const builtMarker = join(root, 'dist/cli/main.js');
  if (newestIn(join(root, 'src')) > mtime(builtMarker) || mtime(join(root, 'tsconfig.json')) > mtime(builtMarker)) {
    run('npx tsc -p tsconfig.json');
  }
  // The web dashboard (served at /app): Vite bundles web/ into dist/web, offline.
  const dashboardMarker = join(root, 'dist/web/index.html');
  const dashboardInputs = Math.max(
    newestIn(join(root, 'web')),
    mtime(join(root, 'package-lock.json')),
    mtime(join(root, 'src/engines/functional/performance/score.ts')),
  );
  if (dashboardInputs > mtime(dashboardMarker)) {
    run('npx vite build --config web/vite.config.ts');
  }
}

if (steps.has('chromium')) {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
  if (!candidates.some((p) => p && existsSync(p))) {
    if (process.getuid?.() === 0) {
      run('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium');
    } else {
      console.error('[ensure] No Chromium found. Install it (sudo apt-get install -y chromium) or set CHROMIUM_PATH.');
      process.exit(1);
    }
  }
}
