/**
 * Throttling and emulation like Lighthouse (docs/functional-testing.md, "Throttling and emulation"):
 * device: mobile is seen by the page and by every gatherer; devtools throttling slows the measured
 * load; simulate gives the figures Lighthouse's Lantern computes from the same trace and network
 * log with Lighthouse's own settings; options.throttling is validated by the API.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { initializeConfig } from 'lighthouse/core/config/config.js';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import { screenEmulationMetrics, throttling as LH_THROTTLING, userAgents } from 'lighthouse/core/config/constants.js';
import { LanternFirstContentfulPaint } from 'lighthouse/core/computed/metrics/lantern-first-contentful-paint.js';
import { LanternInteractive } from 'lighthouse/core/computed/metrics/lantern-interactive.js';
import { LanternLargestContentfulPaint } from 'lighthouse/core/computed/metrics/lantern-largest-contentful-paint.js';
import { LanternSpeedIndex } from 'lighthouse/core/computed/metrics/lantern-speed-index.js';
import { LanternTotalBlockingTime } from 'lighthouse/core/computed/metrics/lantern-total-blocking-time.js';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineContext } from '../../../src/engines/engine.js';
import { createFunctionalEngine, findChromium } from '../../../src/engines/functional/index.js';
import { contextEmulation } from '../../../src/engines/functional/throttling/emulation.js';
import { computationData, simulateMetrics, type SimulatedMetrics } from '../../../src/engines/functional/throttling/lantern.js';
import { LanternWorker } from '../../../src/engines/functional/throttling/lantern-worker.js';
import { LoadRecorder, type RecordedLoad } from '../../../src/engines/functional/throttling/load-recorder.js';
import { decodePng } from '../../../src/engines/functional/visual/png.js';
import { functionalContext, MemoryArtifacts } from '../../helpers/functional-engine.js';

/** What the probe page reported, per load. */
const reports: Array<{ innerWidth: number; dpr: number; ua: string; touch: boolean; coarse: boolean }> = [];

const pad = (bytes: number) => `/*${'x'.repeat(bytes)}*/`;
const CSS = (i: number) => `${pad(60_000)}\n.c${i}{color:#123}`;
const SCRIPT = (i: number) => `${pad(60_000)}\nwindow.s${i}=1;`;
const HERO = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><!--${'x'.repeat(120_000)}--><rect width="400" height="300" fill="#36c"/></svg>`;

/**
 * /heavy: a document whose first paint waits for three 60 KB stylesheets and two 60 KB scripts, and
 * whose largest paint is a 120 KB image: every figure depends on the network.
 * /probe: reports what the page sees of its device; an image without alt shown only on narrow screens.
 */
const PAGES: Record<string, () => string> = {
  '/heavy': () => `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>Heavy</title>
${[0, 1, 2].map((i) => `<link rel="stylesheet" href="/style${i}.css">`).join('')}
${[0, 1].map((i) => `<script src="/script${i}.js"></script>`).join('')}
</head><body><main><h1>Heavy page</h1><p>Waits for its stylesheets and scripts.</p><img src="/hero.svg" width="400" height="300" alt="hero"></main></body></html>`,
  '/probe': () => `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>Probe</title>
<style>.narrow{display:none}@media (max-width:500px){.narrow{display:block}}</style></head>
<body><main><h1>Probe</h1><div class="narrow"><img src="/hero.svg" width="40" height="30"></div>
<script>fetch('/report',{method:'POST',body:JSON.stringify({innerWidth:innerWidth,dpr:devicePixelRatio,ua:navigator.userAgent,touch:'ontouchstart' in window,coarse:matchMedia('(pointer: coarse)').matches})})</script>
</main></body></html>`,
};

async function startThrottlingSite(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/report') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        reports.push(JSON.parse(body));
        res.writeHead(204).end();
      });
      return;
    }
    const css = /^\/style(\d)\.css$/.exec(path);
    if (css) return void res.writeHead(200, { 'content-type': 'text/css' }).end(CSS(Number(css[1])));
    const js = /^\/script(\d)\.js$/.exec(path);
    if (js) return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(SCRIPT(Number(js[1])));
    if (path === '/hero.svg') return void res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(HERO);
    const page = PAGES[path];
    if (!page) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(page());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const engine = createFunctionalEngine();
let site: { url: string; server: Server };

beforeAll(async () => {
  site = await startThrottlingSite();
});
afterAll(async () => {
  await engine.close();
  site?.server.close();
});

function ctx(pages: string[], options: Parameters<typeof functionalContext>[0]['options'], artifacts = new MemoryArtifacts()): EngineContext {
  return functionalContext({ url: site.url, options: { pages, concurrency: 1, ...options } }, { artifacts });
}

describe('device emulation', () => {
  it('mobile: the page, axe and the screenshot all see the Moto G Power (width, pixel ratio, user agent, touch, coarse pointer)', async () => {
    reports.length = 0;
    const artifacts = new MemoryArtifacts();
    const out = await engine.run(ctx(['/probe'], { device: 'mobile', throttling: 'none' }, artifacts));
    expect(reports).toEqual([
      {
        innerWidth: screenEmulationMetrics.mobile.width,
        dpr: screenEmulationMetrics.mobile.deviceScaleFactor,
        ua: userAgents.mobile,
        touch: true,
        coarse: true,
      },
    ]);
    // axe audited the narrow layout: the image shown only below 500 px has no alt.
    expect(out.functional!.accessibility.violations.map((v) => v.rule)).toContain('image-alt');
    const visual = out.functional!.visual[0];
    expect(visual.viewport).toEqual({ width: 412, height: 823 });
    const png = decodePng((await artifacts.get('t1', visual.current_artifact!))!.bytes);
    expect(png.width).toBe(412); // CSS pixels, whatever the pixel ratio
  }, 120_000);

  it("desktop: options.viewport at pixel ratio 1, no touch, a fine pointer, Chromium's own user agent", async () => {
    reports.length = 0;
    const out = await engine.run(ctx(['/probe'], { device: 'desktop', viewport: { width: 1024, height: 700 }, throttling: 'none' }));
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ innerWidth: 1024, dpr: 1, touch: false, coarse: false });
    expect(reports[0].ua).not.toBe(userAgents.mobile);
    expect(out.functional!.accessibility.violations.map((v) => v.rule)).not.toContain('image-alt');
    expect(out.functional!.visual[0].viewport).toEqual({ width: 1024, height: 700 });
  }, 120_000);
});

describe('throttling', () => {
  it('devtools: the mobile profile slows the measured load of a page with several resources (FCP and LCP above the unthrottled ones)', async () => {
    const none = (await engine.run(ctx(['/heavy'], { device: 'mobile', throttling: 'none' }))).functional!.performance.pages[0];
    const devtools = (await engine.run(ctx(['/heavy'], { device: 'mobile', throttling: 'devtools' }))).functional!.performance.pages[0];
    expect(none.throttling).toBe('none');
    expect(devtools.throttling).toBe('devtools');
    expect(devtools.fcp_ms).toBeGreaterThan(none.fcp_ms);
    expect(devtools.lcp_ms).toBeGreaterThan(none.lcp_ms);
    // A floor set by the throttling alone: the document, then its stylesheets, each a request latency later.
    expect(devtools.fcp_ms).toBeGreaterThanOrEqual(2 * LH_THROTTLING.mobileSlow4G.requestLatencyMs);
    // The screenshot and axe ran unthrottled after the load: the page's other tasks passed.
    expect(devtools.performance_score).not.toBeNull();
  }, 180_000);

  it('simulate (the default): the mobile estimates are above the unthrottled observed figures', async () => {
    const none = (await engine.run(ctx(['/heavy'], { device: 'mobile', throttling: 'none' }))).functional!.performance.pages[0];
    const out = await engine.run(ctx(['/heavy'], { device: 'mobile', throttling: undefined }));
    const simulated = out.functional!.performance.pages[0];
    expect(out.functional!.warnings).toBeUndefined();
    expect(simulated.throttling).toBe('simulate');
    expect(simulated.fcp_ms).toBeGreaterThan(none.fcp_ms);
    expect(simulated.lcp_ms).toBeGreaterThan(none.lcp_ms);
    expect(simulated.si_ms).toBeGreaterThan(none.fcp_ms);
    expect(simulated.tti_ms).toBeGreaterThanOrEqual(simulated.fcp_ms);
    // Lantern's floor for a first paint behind render-blocking requests: connection and request round trips.
    expect(simulated.fcp_ms).toBeGreaterThanOrEqual(3 * LH_THROTTLING.mobileSlow4G.rttMs);
  }, 180_000);
});

describe("simulate is Lighthouse's Lantern over the recorded load", () => {
  let browser: Browser;
  let recorded: RecordedLoad;
  let finalUrl: string;
  // The engine's worker thread, as the load gatherer uses it.
  const lantern = new LanternWorker();

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: findChromium(), args: ['--headless', '--no-sandbox'] });
    const context = await browser.newContext(contextEmulation({ device: 'mobile', viewport: { width: 1280, height: 800 } }));
    const page = await context.newPage();
    const rec = await LoadRecorder.start(page);
    await page.goto(`${site.url}/heavy`, { waitUntil: 'load' });
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(1000); // Lighthouse's CPU-quiet window after the load
    finalUrl = page.url();
    recorded = await rec.stop();
    await context.close();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await lantern.close();
  });

  /** Lighthouse's own settings: its default config (mobile) and its desktop preset, resolved by Lighthouse. */
  async function lighthouseSettings(device: 'mobile' | 'desktop'): Promise<Record<string, unknown>> {
    const { resolvedConfig } = await initializeConfig('navigation', device === 'desktop' ? desktopConfig : undefined, {});
    return resolvedConfig.settings as unknown as Record<string, unknown>;
  }

  /** What Lighthouse's Lantern metrics compute from the recording with Lighthouse's settings. */
  async function lanternDirect(settings: Record<string, unknown>): Promise<Pick<SimulatedMetrics, 'fcp' | 'lcp' | 'si' | 'tbt' | 'tti'>> {
    const data = {
      trace: recorded.trace,
      devtoolsLog: recorded.devtoolsLog,
      gatherContext: { gatherMode: 'navigation' },
      settings,
      URL: { requestedUrl: `${site.url}/heavy`, mainDocumentUrl: finalUrl, finalDisplayedUrl: finalUrl },
      SourceMaps: [],
      simulator: null,
    };
    const context = { computedCache: new Map() };
    type Req = { request(d: unknown, c: unknown): Promise<{ timing: number }> };
    const t = async (m: unknown) => (await (m as Req).request(data, context)).timing;
    return {
      fcp: await t(LanternFirstContentfulPaint),
      lcp: await t(LanternLargestContentfulPaint),
      si: await t(LanternSpeedIndex),
      tbt: await t(LanternTotalBlockingTime),
      tti: await t(LanternInteractive),
    };
  }

  for (const device of ['mobile', 'desktop'] as const) {
    it(`${device}: the same settings as Lighthouse resolves them, and the same FCP, LCP, SI, TBT and TTI as its Lantern metrics`, async () => {
      const lhSettings = await lighthouseSettings(device);
      const ours = computationData(recorded, device, `${site.url}/heavy`, finalUrl);
      for (const key of ['formFactor', 'throttlingMethod', 'throttling', 'screenEmulation', 'emulatedUserAgent'] as const)
        expect(ours.settings[key], key).toEqual(lhSettings[key]);
      const { metrics, failures } = await simulateMetrics(ours, lantern);
      expect(failures).toEqual({});
      const direct = await lanternDirect(lhSettings);
      expect({ fcp: metrics.fcp, lcp: metrics.lcp, si: metrics.si, tbt: metrics.tbt, tti: metrics.tti }).toEqual(direct);
      expect(metrics.fcp).toBeGreaterThan(0);
    }, 120_000);
  }

  it('the mobile profile estimates a slower load than the desktop one from the same recording', async () => {
    const mobile = (await simulateMetrics(computationData(recorded, 'mobile', `${site.url}/heavy`, finalUrl), lantern)).metrics;
    const desktop = (await simulateMetrics(computationData(recorded, 'desktop', `${site.url}/heavy`, finalUrl), lantern)).metrics;
    expect(mobile.fcp!).toBeGreaterThan(desktop.fcp!);
    expect(mobile.lcp!).toBeGreaterThan(desktop.lcp!);
  }, 60_000);
});
