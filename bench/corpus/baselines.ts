/**
 * The benchmark's baselines in a process of their own: Lighthouse (the npm package, its own
 * Chrome through chrome-launcher), axe-core run directly and a full-page screenshot (Playwright,
 * its own Chromium). Requests come one JSON line at a time on stdin, answers go one JSON line at a
 * time on stdout, in order:
 *   {"op":"lighthouse","url":...,"settings":{...},"categories":["performance"]} -> {figures, ms}
 *   {"op":"axe","url":...}        -> {axe, ms}  (ms: a fresh page's load + axe)
 *   {"op":"screenshot","url":...} -> {ms, height} (a fresh page's load + full-page capture)
 * The same system Chromium as the engine's, never a downloaded one.
 */
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';
import { LAUNCH_ARGS, resolveChromium } from '../../src/engines/functional/browser.js';
import { LighthouseRunner, type Settings } from '../lib/lighthouse-run.js';
import { axeDirect } from './axe-direct.js';

type Request =
  | { op: 'lighthouse'; url: string; settings: Settings; categories: Array<'performance' | 'accessibility'> }
  | { op: 'axe' | 'screenshot'; url: string };

const lighthouse = await LighthouseRunner.start();
const browser = await chromium.launch({ executablePath: resolveChromium(), args: LAUNCH_ARGS });
const VIEWPORT = { width: 1280, height: 800 };

async function handle(req: Request): Promise<unknown> {
  if (req.op === 'lighthouse') return lighthouse.run(req.url, req.settings, req.categories);
  const t0 = performance.now();
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    const page = await context.newPage();
    await page.goto(req.url, { waitUntil: 'load', timeout: 60_000 });
    if (req.op === 'axe') {
      const axe = await axeDirect(page);
      return { axe, ms: performance.now() - t0 };
    }
    const png = await page.screenshot({ fullPage: true, timeout: 120_000 });
    return { ms: performance.now() - t0, bytes: png.length, height: png.readUInt32BE(20) };
  } finally {
    await context.close();
  }
}

process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const req = JSON.parse(line) as Request;
  try {
    process.stdout.write(`${JSON.stringify({ ok: true, value: await handle(req) })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ ok: false, error: error instanceof Error ? error.message : String(error) })}\n`);
  }
}
await lighthouse.close();
await browser.close();
process.exit(0);
