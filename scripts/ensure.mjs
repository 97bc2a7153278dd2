#!/usr/bin/env node
// Makes `npm start`, `npm test` and `npm run bench` work on a fresh machine: installs the locked
// npm packages when they are missing or stale, builds the TypeScript and the web dashboard, (for "chromium")
// installs Debian's Chromium when no browser is present, and (for "python") the Debian packages of the
// security corpus's Python apps. Uses only Node built-ins.
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
  const builtMarker = join(root, 'dist/operator/main.js');
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

// The security corpus's real Python apps (test/corpus/apps.ts) run on Debian's python3 and these packages.
const CORPUS_DEBS = [
  'python3-django',
  'python3-djangorestframework',
  'python3-djangorestframework-spectacular',
  'python3-dj-database-url',
  'python3-whitenoise',
  'python3-pygments',
  'python3-uritemplate',
  'python3-yaml',
  'python3-fastapi',
  'python3-uvicorn',
  'python3-sqlalchemy',
  'python3-jose',
  'python3-passlib',
  'python3-bcrypt',
  'python3-multipart',
  'python3-email-validator',
];
if (steps.has('python')) {
  let missing = false;
  try {
    execSync(`dpkg -s ${CORPUS_DEBS.join(' ')}`, { stdio: 'ignore' });
  } catch {
    missing = true;
  }
  if (missing) {
    if (process.getuid?.() === 0) {
      run(`apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${CORPUS_DEBS.join(' ')}`);
    } else {
      console.error(`[ensure] The security corpus's Python apps need Debian packages: sudo apt-get install -y ${CORPUS_DEBS.join(' ')}`);
      process.exit(1);
    }
  }
}
