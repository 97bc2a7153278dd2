/**
 * One full-page screenshot instead of two when the page provably did not change while it was
 * captured (visual/still.ts): a static page is captured once and its repeat scan shows no diff;
 * a page whose script keeps changing it (a carousel), pages whose script reacts to the capture's
 * resize of the window (a ResizeObserver redrawing a canvas, a media query listener changing the
 * DOM), and one whose CSS background is
 * an animated image (pixels that change without script) are captured until two screenshots agree,
 * as before.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { PNG } from 'pngjs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAUNCH_ARGS, resolveChromium } from '../../../src/engines/functional/browser.js';
import { createFunctionalEngine } from '../../../src/engines/functional/index.js';
import { ACTIVITY_INIT } from '../../../src/engines/functional/performance/activity.js';
import { CAPTURE_GUARD_INIT, stableCapture, type Capture } from '../../../src/engines/functional/visual/capture.js';
import { comparePngs, decodePng } from '../../../src/engines/functional/visual/diff.js';
import { animatedPng } from '../../fixtures/site/server.js';
import { functionalContext, MemoryArtifacts, MemoryBaselines } from '../../helpers/functional-engine.js';

/** A solid 200x100 PNG (one frame). */
function solidPng(r: number, g: number, b: number): Buffer {
  const png = new PNG({ width: 200, height: 100 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([r, g, b, 255], i);
  return PNG.sync.write(png);
}

/** Taller than the viewport: Chromium captures beyond the viewport, resizing the window to 1x1 and back. */
const STYLE = 'body{margin:0;font:16px sans-serif}main{padding:20px 40px;min-height:2400px}';
const doc = (title: string, body: string, css = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>${STYLE}${css}</style></head><body><main>${body}</main></body></html>`;
const PAGES: Record<string, string> = {
  // Text, an image and a CSS background image, nothing that runs: one screenshot is the page.
  '/static': doc(
    'Static',
    '<h1>Opening hours</h1><p>Monday to Friday, 9 to 5.</p><img src="/blue.png" alt="Shop front" width="200" height="100"><div class="banner"></div><p>Closed on public holidays.</p>',
    '.banner{width:200px;height:100px;background:url(/green.png)}',
  ),
  // A timer switches slides every 700 ms.
  '/carousel': doc(
    'Carousel',
    '<h1>Offers</h1><div id="carousel">Spring sale</div><p>Below the carousel.</p><script>const t=["Spring sale","New arrivals","Free delivery"];let i=0;setInterval(()=>{i=(i+1)%t.length;document.getElementById("carousel").textContent=t[i]},700)</script>',
    '#carousel{height:200px;background:#234;color:#fff;font-size:40px}',
  ),
  // A ResizeObserver that redraws a canvas (no DOM change) when its box's width changes; the box
  // narrows once the window has changed (a media query listener adding a CSS rule, no DOM change
  // either), which the capture's resize of the window to 1x1 and back does: only `ran` shows it.
  '/resize-observer': doc(
    'Resize observer',
    `<h1>Chart</h1><div id="box"><canvas id="chart" width="200" height="100" style="display:block"></canvas></div><p>The end.</p>
<script>const box = document.getElementById('box'), ctx = document.getElementById('chart').getContext('2d');
matchMedia('(max-width: 480px)').addEventListener('change', () => document.styleSheets[0].insertRule('#box{width:300px}'));
new ResizeObserver(() => { ctx.fillStyle = box.clientWidth < 600 ? 'rgb(220,20,20)' : 'rgb(20,60,200)'; ctx.fillRect(0, 0, 200, 100); }).observe(box);</script>`,
  ),
  // A media query listener (not a resize handler: not held back during the capture) that marks the
  // page once the window has changed (the capture's resize changes it at least once).
  '/media-query': doc(
    'Media query',
    '<h1>Menu</h1><p>Wide layout.</p><script>matchMedia("(max-width: 480px)").addEventListener("change", () => document.body.classList.add("measured"));</script>',
    '.measured h1{color:#c00}',
  ),
  // An animated image as a CSS background: its pixels change with no script at all.
  '/animated-background': doc('Animated', '<h1>Live</h1><div class="anim"></div><p>Text.</p>', '.anim{width:64px;height:64px;background:url(/anim.png)}'),
};
const IMAGES: Record<string, Buffer> = { '/blue.png': solidPng(20, 60, 200), '/green.png': solidPng(20, 160, 60), '/anim.png': animatedPng() };

let server: Server;
let base: string;
let browser: Browser;
const engine = createFunctionalEngine();

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const image = IMAGES[path];
    if (image) return void res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'max-age=3600' }).end(image);
    const html = PAGES[path];
    if (!html) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: resolveChromium(), args: LAUNCH_ARGS });
});
afterAll(async () => {
  await browser.close();
  await engine.close();
  await new Promise((r) => server.close(r));
});

/** A logger whose "page captured" lines (screenshot gatherer) are kept: how many screenshots each page took. */
function captureLog() {
  const captures: number[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        const entry = JSON.parse(line) as { msg?: string; captures?: number };
        if (entry.msg === 'page captured') captures.push(entry.captures!);
      }
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), captures };
}

const artifacts = new MemoryArtifacts();
const baselines = new MemoryBaselines();

/** Scans `path` with the real engine (baselines kept across scans); the visual result and the screenshots taken. */
async function scan(path: string, resetBaseline = false) {
  const { logger, captures } = captureLog();
  const out = await engine.run(
    functionalContext(
      { url: base + path, reset_baseline: resetBaseline, options: { pages: [base + path], throttling: 'none' } },
      { artifacts, baselines, logger },
    ),
  );
  expect(captures).toHaveLength(1);
  return { visual: out.functional!.visual[0]!, captures: captures[0]! };
}

/** Captures `path` in a page with a plain 1280x800 viewport and the init scripts the engine installs. */
async function plainCapture(path: string): Promise<Capture> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.addInitScript(CAPTURE_GUARD_INIT);
    await page.addInitScript(ACTIVITY_INIT);
    await page.goto(base + path, { waitUntil: 'load' });
    return await stableCapture(page, {});
  } finally {
    await context.close();
  }
}

describe('one screenshot when the page provably did not change', () => {
  it('a static page (text, an image, a CSS background image) is captured once, and its repeat scan shows no diff', async () => {
    const first = await scan('/static', true);
    expect(first).toMatchObject({ captures: 1, visual: { baseline_created: true, unstable: false } });
    const again = await scan('/static');
    expect(again.captures).toBe(1);
    expect(again.visual).toMatchObject({ diff_detected: false, diff_percent: 0, unstable: false });
    // Playwright's mask overlay is not the page changing.
    const { logger, captures } = captureLog();
    await engine.run(
      functionalContext({ url: base, reset_baseline: true, options: { pages: [base + '/static'], throttling: 'none', mask: ['h1'] } }, { logger }),
    );
    expect(captures).toEqual([1]);
  }, 120_000);

  it('a carousel driven by a timer is still captured until screenshots agree (visual.test.ts: reported unstable)', async () => {
    expect((await scan('/carousel', true)).captures).toBeGreaterThanOrEqual(2);
    expect((await scan('/carousel')).captures).toBeGreaterThanOrEqual(2);
  }, 120_000);

  // In the engine's pages the window has kept its size around a capture here (no callback ran);
  // a page opened with a plain viewport gets the 1x1 resize, which these two react to.
  it('a ResizeObserver callback that redraws a canvas during the capture: not accepted from one screenshot; the capture is the final state', async () => {
    const first = await plainCapture('/resize-observer');
    expect(first.captures).toBeGreaterThanOrEqual(2);
    const png = decodePng(first.png);
    const i = (150 * png.width + 140) * 4;
    expect(Array.from(png.data.subarray(i, i + 3))).toEqual([220, 20, 20]);
    const again = await plainCapture('/resize-observer');
    expect(comparePngs(first.png, again.png, { thresholdPercent: 0.5, minRegionPx: 150 }).diffDetected).toBe(false);
  }, 120_000);

  it('a media query listener that changes the DOM during the capture: not accepted from one screenshot', async () => {
    const first = await plainCapture('/media-query');
    expect(first.captures).toBeGreaterThanOrEqual(2);
    const again = await plainCapture('/media-query');
    expect(comparePngs(first.png, again.png, { thresholdPercent: 0.5, minRegionPx: 150 }).diffDetected).toBe(false);
  }, 120_000);

  it('an animated CSS background (no script runs) is not accepted from one screenshot', async () => {
    const first = await scan('/animated-background', true);
    expect(first.captures).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
