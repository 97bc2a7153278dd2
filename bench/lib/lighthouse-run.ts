/**
 * Lighthouse (the npm package) on the system Chromium through chrome-launcher, with the settings
 * of one benchmark row, and the figures the agreement tables compare.
 */
import { performance } from 'node:perf_hooks';
import { launch as launchChrome, type LaunchedChrome } from 'chrome-launcher';
import lighthouse from 'lighthouse';
import defaultConfig from 'lighthouse/core/config/default-config.js';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import { resolveChromium } from '../../src/engines/functional/browser.js';

/** The figures compared, Lighthouse's and Vigil's alike (null: not measured or not scored). */
export interface Figures {
  fcp: number | null;
  lcp: number | null;
  tbt: number | null;
  cls: number | null;
  si: number | null;
  perf: number | null;
  a11y: number | null;
}

/** One settings row: how both tools measure. */
export interface Settings {
  /** Vigil's options.throttling; Lighthouse's throttlingMethod (`none` is `provided`). */
  throttling: 'none' | 'simulate' | 'devtools';
  device: 'desktop' | 'mobile';
  /** Screen both emulate (desktop: Vigil's options.viewport and Lighthouse's screenEmulation). */
  viewport: { width: number; height: number };
}

export class LighthouseRunner {
  private constructor(private readonly chrome: LaunchedChrome) {}

  static async start(): Promise<LighthouseRunner> {
    // Never a downloaded browser: the same Chromium as the engine's (CHROMIUM_PATH or /usr/bin/chromium).
    const chrome = await launchChrome({
      chromePath: resolveChromium(),
      chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    return new LighthouseRunner(chrome);
  }

  async close(): Promise<void> {
    await this.chrome.kill();
  }

  /** One Lighthouse run of `categories` on `url`; its figures and wall time. */
  async run(url: string, s: Settings, categories: Array<'performance' | 'accessibility'>): Promise<{ figures: Figures; ms: number; warnings: string[] }> {
    const base = s.device === 'desktop' ? desktopConfig : defaultConfig;
    const settings = {
      ...base.settings,
      onlyCategories: categories,
      throttlingMethod: s.throttling === 'none' ? ('provided' as const) : s.throttling,
      ...(s.device === 'desktop'
        ? {
            formFactor: 'desktop' as const,
            screenEmulation: { mobile: false, width: s.viewport.width, height: s.viewport.height, deviceScaleFactor: 1, disabled: false },
          }
        : {}),
    };
    const flags = { port: this.chrome.port, output: 'json' as const, logLevel: 'error' as const, onlyCategories: categories };
    const t0 = performance.now();
    const res = await lighthouse(url, flags, { ...base, settings });
    const ms = performance.now() - t0;
    const lhr = res!.lhr;
    const num = (id: string) => lhr.audits[id]?.numericValue ?? null;
    const score = (id: string) => {
      const v = lhr.categories[id]?.score;
      return typeof v === 'number' ? Math.round(v * 100) : null;
    };
    return {
      ms,
      warnings: [...lhr.runWarnings, ...(lhr.runtimeError ? [lhr.runtimeError.message] : [])],
      figures: {
        fcp: num('first-contentful-paint'),
        lcp: num('largest-contentful-paint'),
        tbt: num('total-blocking-time'),
        cls: num('cumulative-layout-shift'),
        si: num('speed-index'),
        perf: categories.includes('performance') ? score('performance') : null,
        a11y: categories.includes('accessibility') ? score('accessibility') : null,
      },
    };
  }
}
