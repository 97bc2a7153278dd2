import { execSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { DASHBOARD_DIR } from '../../src/http/routes/dashboard.js';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Where the test run writes the dashboard's screenshots for review (gitignored). */
export const SCREENSHOT_DIR = join(ROOT, 'test-output/dashboard');

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function stale(): boolean {
  let built = 0;
  try {
    built = statSync(join(DASHBOARD_DIR, 'index.html')).mtimeMs;
  } catch {
    built = 0;
  }
  return newest(join(ROOT, 'web')) > built;
}

/**
 * Builds the dashboard when web/ changed since the last build (what `npm test`'s ensure step also does).
 * Test files run in parallel: one builds (holding a lock directory), the others wait for it.
 */
export function ensureDashboardBuilt(): void {
  const lock = join(ROOT, 'dist/.web-build-lock');
  const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  const deadline = Date.now() + 300_000;
  while (stale()) {
    mkdirSync(join(ROOT, 'dist'), { recursive: true });
    try {
      mkdirSync(lock);
    } catch {
      if (Date.now() > deadline) throw new Error(`the dashboard build lock ${lock} is still held`);
      sleep(500);
      continue;
    }
    try {
      if (stale()) execSync('npx vite build --config web/vite.config.ts', { cwd: ROOT, stdio: 'inherit' });
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** The scripts index.html loads, and their gzipped size: the first page's JavaScript. */
export function firstPageScripts(): { files: string[]; gzipBytes: number } {
  const html = readFileSync(join(DASHBOARD_DIR, 'index.html'), 'utf8');
  const files = [...html.matchAll(/<script[^>]+src="\/app\/([^"]+)"/g), ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/app\/([^"]+)"/g)].map(
    (m) => m[1]!,
  );
  const gzipBytes = files.reduce((sum, file) => sum + gzipSync(readFileSync(join(DASHBOARD_DIR, file)), { level: 9 }).length, 0);
  return { files, gzipBytes };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}
