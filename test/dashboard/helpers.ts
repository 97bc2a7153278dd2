import { execSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
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

/** Builds the dashboard when web/ changed since the last build (what `npm test`'s ensure step also does). */
export function ensureDashboardBuilt(): void {
  let built = 0;
  try {
    built = statSync(join(DASHBOARD_DIR, 'index.html')).mtimeMs;
  } catch {
    built = 0;
  }
  if (newest(join(ROOT, 'web')) > built) execSync('npx vite build --config web/vite.config.ts', { cwd: ROOT, stdio: 'inherit' });
}

/** The scripts index.html loads, and their gzipped size: the first page's JavaScript. */
export function firstPageScripts(): { files: string[]; gzipBytes: number } {
  const html = readFileSync(join(DASHBOARD_DIR, 'index.html'), 'utf8');
  const files = [...html.matchAll(/<script[^>]+src="\/app\/([^"]+)"/g), ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/app\/([^"]+)"/g)].map((m) => m[1]!);
  const gzipBytes = files.reduce((sum, file) => sum + gzipSync(readFileSync(join(DASHBOARD_DIR, file)), { level: 9 }).length, 0);
  return { files, gzipBytes };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}
