/**
 * The load gatherer: navigates to the page once and measures the load's metrics until the page is
 * quiet (performance/metrics.ts), throttled as options.throttling says (throttling/):
 * - `none`: unthrottled; the speed index from screencast frames recorded from before the navigation.
 * - `devtools`: the device's Lighthouse profile applied in the browser during this load only.
 * - `simulate` (default): unthrottled, recording a trace and the DevTools network log, from which
 *   Lighthouse's Lantern simulation computes the metrics for the device's profile (CLS is observed,
 *   as Lighthouse's), on the engine's worker thread while the page is audited: the `throttled`
 *   gatherer, last, waits for it. When Lighthouse cannot compute them, the page is loaded again with
 *   `devtools` throttling, with a warning.
 *
 * The observation ends as soon as the page is provably quiet (performance/activity.ts), else after
 * the quiet window (performance/metrics.ts).
 *
 * A page whose load event has not come by options.timeout (a subresource that never finishes) is
 * measured and audited as it is then, with a warning, as Lighthouse does past its load wait. A
 * main response that is not HTML (a PDF, JSON, an image) is refused: there is no page to audit.
 */
import type { Page, Response } from 'playwright-core';
import { ScreencastRecorder } from '../performance/speed-index.js';
import { ACTIVITY_INIT, NetworkActivity, provablyQuiet } from '../performance/activity.js';
import { measure, METRICS_INIT, QUIET_WINDOW_MS, type Metrics } from '../performance/metrics.js';
import { DevtoolsThrottle } from '../throttling/devtools.js';
import { computationData, describeFailures, simulateMetrics, type SimulatedMetrics } from '../throttling/lantern.js';
import { LoadRecorder, type RecordedLoad } from '../throttling/load-recorder.js';
import { presetFor } from '../throttling/presets.js';
import type { ObservedLoad, PageLoad, Simulation } from '../artifacts.js';
import type { Gatherer, PageEnv } from '../types.js';

export type { PageLoad, Simulation };

/** The main response is not an HTML document: the page is reported and not audited. */
export class NotHtmlPage extends Error {
  constructor(readonly contentType: string) {
    super(`not an HTML page (${contentType}); not audited`);
  }
}

/** No request in flight for this long ends the load's network activity (Lighthouse's networkQuietThresholdMs). */
const NETWORK_QUIET_MS = 1000;

const HTML_TYPE = /^\s*(text\/html|application\/xhtml\+xml)\s*(;|$)/i;

/** The main response's media type, without parameters ("" when it names none). */
function mediaType(resp: Response): string {
  return (resp.headers()['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

/** Observes the navigation's load from before it starts until the metrics are read. */
interface LoadProbe {
  /** The speed index's frames (none: SI is the simulation's, or FCP). */
  screencast?: ScreencastRecorder;
  /** Called once the metrics are read, or the load failed. */
  end(failed: boolean): Promise<void>;
}

const METRICS_SCRIPT = new WeakSet<Page>();

/** Navigates and measures; `probe` starts whatever observes the load (before the navigation). */
async function loadAndMeasure(env: PageEnv, startProbe: () => Promise<LoadProbe>): Promise<Omit<PageLoad, 'throttling'>> {
  const { page, url, scan, warn } = env;
  const timeoutMs = scan.timeoutMs;
  if (!METRICS_SCRIPT.has(page)) {
    await page.addInitScript(ACTIVITY_INIT);
    await page.addInitScript(METRICS_INIT);
    METRICS_SCRIPT.add(page);
  }
  const probe = await startProbe();
  const screencast = probe.screencast;
  let main: Response | undefined;
  const onResponse = (r: Response) => {
    if (r.frame() === page.mainFrame() && r.request().isNavigationRequest()) main = r;
  };
  page.on('response', onResponse);
  const net = NetworkActivity.watch(page);
  let loadTimedOut = false;
  try {
    try {
      const resp = await page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
      if (resp) main = resp;
    } catch (err) {
      // Chromium refuses to render some error responses (an empty 404): the status is reported
      // below. A document that arrived but never finished loading is measured as it is.
      const arrived = main !== undefined;
      if (arrived && (err as Error).name === 'TimeoutError') loadTimedOut = true;
      else if (!arrived || main!.status() < 400) throw err;
    }
    const status = main?.status() ?? 0;
    if (status >= 400) throw new Error(`HTTP ${status}`);
    const type = main ? mediaType(main) : '';
    // No content type: Chromium sniffed it and rendered a document; audit it.
    if (type && !HTML_TYPE.test(type)) throw new NotHtmlPage(type);
    // Proven quiet (nothing pending could run within the quiet window): read at once. Otherwise
    // observed until the network is idle and the main thread quiet, within a quarter of the page's budget.
    let quiet = false;
    if (loadTimedOut) {
      warn(`the page did not finish loading within ${timeoutMs / 1000} s (options.timeout); it was measured and audited as it was then`);
      scan.logger.warn({ page: url }, 'page not loaded by options.timeout; measured and audited as it is');
    } else {
      quiet = await provablyQuiet(page, net, QUIET_WINDOW_MS, Math.min(5000, timeoutMs / 4));
      // Lighthouse's network quiet (1 s without a request in flight), then the CPU-quiet window.
      if (!quiet) await net.quietFor(NETWORK_QUIET_MS, Math.min(5000, timeoutMs));
    }
    const timing = main?.request().timing();
    const ttfb = timing && timing.responseStart >= 0 ? timing.responseStart : 0;
    const { metrics, capped } = await measure(page, ttfb, screencast, Math.min(5000, timeoutMs / 4), quiet ? 0 : QUIET_WINDOW_MS);
    await probe.end(false);
    const contentSecurityPolicy = (await main?.headerValue('content-security-policy').catch(() => null)) ?? '';
    return { status, finalUrl: page.url(), documentUrl: main?.url() ?? page.url(), contentSecurityPolicy, metrics, capped, loadTimedOut };
  } catch (err) {
    await screencast?.stop();
    await probe.end(true);
    throw err;
  } finally {
    page.off('response', onResponse);
    net.stop();
  }
}

/** An unthrottled load (`none`) or one throttled in the browser (`devtools`). */
async function observedLoad(env: PageEnv, throttled: boolean, freshCache = false): Promise<Omit<PageLoad, 'throttling'>> {
  const profile = presetFor(env.scan.options.device).throttling;
  return loadAndMeasure(env, async () => {
    // Throttling first: the screencast's own traffic is not what is throttled, the page's is.
    const throttle = throttled ? await DevtoolsThrottle.apply(env.page, profile, { disableCache: freshCache }) : undefined;
    const screencast = await ScreencastRecorder.start(env.page).catch(() => undefined);
    return { screencast, end: async () => throttle?.release() };
  });
}

/** The observed metrics with those Lighthouse simulated in their place (SI stays FCP when not simulated: no screencast). */
function withSimulated(observed: Metrics, sim: Partial<SimulatedMetrics>): Metrics {
  const r = (v: number | undefined, fallback: number) => (v === undefined ? fallback : Math.round(v));
  const fcp = r(sim.fcp, observed.fcp_ms);
  return {
    ...observed,
    fcp_ms: fcp,
    lcp_ms: Math.max(r(sim.lcp, observed.lcp_ms), fcp),
    si_ms: r(sim.si, observed.si_ms),
    tbt_ms: r(sim.tbt, observed.tbt_ms),
    tti_ms: r(sim.tti, observed.tti_ms),
    fid_ms: r(sim.fid, observed.fid_ms),
    ttfb_ms: r(sim.ttfb, observed.ttfb_ms),
  };
}

/**
 * `simulate`: one unthrottled load recorded for Lighthouse. The observed load is returned once its
 * trace is read; the simulation (Lighthouse's computation on the engine's worker thread) goes on
 * while the page is audited, its metrics replacing the observed ones (CLS stays observed).
 */
async function simulatedLoad(env: PageEnv): Promise<{ load: ObservedLoad; simulation: Promise<Simulation> }> {
  let recorder: LoadRecorder | undefined;
  let failure: string | undefined;
  const load = await loadAndMeasure(env, async () => {
    recorder = await LoadRecorder.start(env.page).catch((err: Error) => {
      failure = `the load could not be traced: ${err.message.split('\n')[0]}`;
      return undefined;
    });
    return { end: async (failed) => (failed ? recorder?.abandon() : undefined) };
  });
  if (!recorder) return { load, simulation: Promise.resolve({ load, failure }) };
  // The trace is read while the page is surely open (the simulation needs the page no more).
  let recorded: RecordedLoad;
  try {
    recorded = await recorder.stop();
  } catch (err) {
    return { load, simulation: Promise.resolve({ load, failure: `the trace could not be read: ${(err as Error).message}` }) };
  }
  const simulation = (async (): Promise<Simulation> => {
    // Nothing painted: there is nothing to simulate (the audit reports it).
    if (load.metrics.fcp_ms <= 0) return { load };
    try {
      const sim = await simulateMetrics(computationData(recorded, env.scan.options.device, env.url, load.documentUrl, load.finalUrl), env.scan.lantern);
      const failed = describeFailures(sim.failures);
      return {
        load: { ...load, metrics: withSimulated(load.metrics, sim.metrics) },
        ...(failed ? { failure: `Lighthouse's simulation could not compute ${failed}`, partial: Object.keys(sim.metrics).length > 0 } : {}),
      };
    } catch (err) {
      return { load, failure: `Lighthouse's simulation failed: ${(err as Error).message}` };
    }
  })();
  return { load, simulation };
}

function warnIfCapped({ url, scan, warn }: PageEnv, load: PageLoad): void {
  if (!load.capped) return;
  const note = 'the page did not go quiet (long tasks, or no contentful paint) before its metrics were read; TTI and TBT cover the load until then';
  warn(note);
  scan.logger.warn({ page: url }, note);
}

/** The metric load (exclusive); with `simulate`, its simulation started. */
export const loadGatherer: Gatherer<'load'> = {
  artifact: 'load',
  exclusive: true,
  background: (load) => load.simulation,
  async gather(env) {
    const mode = env.scan.options.throttling ?? 'simulate';
    let load: PageLoad;
    if (mode !== 'simulate') load = { ...(await observedLoad(env, mode === 'devtools')), throttling: mode };
    else {
      const { load: observed, simulation } = await simulatedLoad(env);
      load = { ...observed, throttling: 'simulate', simulation };
    }
    warnIfCapped(env, load);
    return load;
  },
};

/** Whether the simulation failed on a finished load: the page is then loaded again, throttled in the browser. */
async function needsReload(load: PageLoad | undefined): Promise<boolean> {
  if (!load?.simulation) return false;
  const sim = await load.simulation;
  return sim.failure !== undefined && !sim.load.loadTimedOut;
}

/**
 * The load's metrics under options.throttling: the observed ones (`none`, `devtools`), or the
 * simulation's once it has finished; when Lighthouse could not compute them on a finished load, the
 * page is loaded again with devtools throttling (holding the exclusive lock, as the first load did).
 */
export const throttledGatherer: Gatherer<'throttled'> = {
  artifact: 'throttled',
  exclusive: (_env, got) => needsReload(got.load),
  async gather(env, got) {
    const { url, scan, warn } = env;
    const { simulation, ...observed } = got.load!;
    if (!simulation) return observed;
    const sim = await simulation;
    // A second load of an unfinished one would not finish either, and the page's time is spent.
    if (sim.failure === undefined || sim.load.loadTimedOut) return simulatedAsFarAsItWent(env, sim, 'on this unfinished load');
    warn(`${sim.failure}; the page was loaded again with devtools throttling`);
    scan.logger.warn({ page: url, reason: sim.failure }, 'simulated throttling failed; measured again with devtools throttling');
    // The first load filled the HTTP cache: the second starts from an empty one, as the first did.
    const again: PageLoad = { ...(await observedLoad(env, true, true)), throttling: 'devtools' };
    warnIfCapped(env, again);
    return again;
  },
  // The page failed after its load (its time ran out in axe, say): the metrics are its load's.
  async salvage(env, got) {
    if (!got.load) return undefined;
    const { simulation, ...observed } = got.load;
    if (!simulation) return observed;
    const sim = await simulation;
    return simulatedAsFarAsItWent(env, sim, sim.load.loadTimedOut ? 'on this unfinished load' : 'and the page could not be loaded again');
  },
};

/** The simulation's metrics, or where it failed, those it computed and the observed ones for the rest (with a warning). */
function simulatedAsFarAsItWent({ url, scan, warn }: PageEnv, sim: Simulation, why: string): PageLoad {
  if (sim.failure === undefined) return { ...sim.load, throttling: 'simulate' };
  warn(`${sim.failure} ${why}; ${sim.partial ? 'its unthrottled figure is reported for each' : 'its metrics are unthrottled'}`);
  scan.logger.warn({ page: url, reason: sim.failure }, 'simulated throttling incomplete; unthrottled figures kept');
  return { ...sim.load, throttling: sim.partial ? 'simulate' : 'none' };
}
