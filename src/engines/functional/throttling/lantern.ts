/**
 * The `simulate` throttling: Lighthouse's own metric computations in its `simulate` mode (each
 * metric's computed artifact, which runs Lighthouse's Lantern simulation: the page's dependency
 * graph from the network log and the trace's main-thread tasks, replayed under the device's
 * throttling profile) over the trace and network log of Vigil's one unthrottled load. Nothing of
 * Lantern is re-implemented here: this builds Lighthouse's inputs and reads its results.
 */
import { defaultSettings, screenEmulationMetrics, userAgents } from 'lighthouse/core/config/constants.js';
import type { Device, ThrottlingProfile } from './presets.js';
import { presetFor } from './presets.js';
import type { RecordedLoad } from './load-recorder.js';

/** Lighthouse's input to a metric computation (LH.Artifacts.MetricComputationDataInput). */
export interface MetricComputationData extends RecordedLoad {
  gatherContext: { gatherMode: 'navigation' };
  settings: Record<string, unknown>;
  URL: { requestedUrl: string; mainDocumentUrl: string; finalDisplayedUrl: string };
  SourceMaps: unknown[];
  simulator: null;
}

/** Lighthouse's computed-artifact cache (LH.Artifacts.ComputedContext); one per page load. */
export interface ComputedContext {
  computedCache: Map<string, unknown>;
}

/** A computed metric artifact of Lighthouse (`request` caches in the context). */
interface ComputedMetric {
  request(data: MetricComputationData, context: ComputedContext): Promise<{ timing: number }>;
}

/**
 * Lighthouse's settings for the device, as its default config (mobile) and its desktop preset set
 * them, with `throttlingMethod`.
 */
export function lighthouseSettings(device: Device, throttlingMethod: 'simulate' | 'devtools' | 'provided' = 'simulate'): Record<string, unknown> {
  const preset = presetFor(device);
  const throttling: ThrottlingProfile = { ...preset.throttling };
  return {
    ...(defaultSettings as unknown as Record<string, unknown>),
    formFactor: device,
    throttlingMethod,
    throttling,
    screenEmulation: { ...screenEmulationMetrics[device] },
    emulatedUserAgent: userAgents[device],
  };
}

/**
 * The computation input for one recorded load of `requestedUrl` whose document came from
 * `documentUrl` (after redirects) and which showed `displayedUrl` at the end (a single-page app may
 * have moved it with history.replaceState; Lighthouse finds the main request by the document's URL).
 */
export function computationData(rec: RecordedLoad, device: Device, requestedUrl: string, documentUrl: string, displayedUrl = documentUrl): MetricComputationData {
  return {
    trace: rec.trace,
    devtoolsLog: rec.devtoolsLog,
    gatherContext: { gatherMode: 'navigation' },
    settings: lighthouseSettings(device),
    URL: { requestedUrl, mainDocumentUrl: documentUrl, finalDisplayedUrl: displayedUrl },
    SourceMaps: [],
    simulator: null,
  };
}

export interface SimulatedMetrics {
  fcp: number;
  lcp: number;
  si: number;
  tbt: number;
  tti: number;
  /** Max potential FID. */
  fid: number;
  ttfb: number;
}

let metricsLoaded: Promise<Record<keyof SimulatedMetrics, ComputedMetric>> | undefined;

/**
 * Lighthouse's metric computations, loaded on first use (about a second of module loading that a
 * worker only pays once it simulates a page).
 */
function lighthouseMetrics(): Promise<Record<keyof SimulatedMetrics, ComputedMetric>> {
  metricsLoaded ??= (async () => {
    const [fcp, lcp, si, tbt, tti, fid, ttfb] = await Promise.all([
      import('lighthouse/core/computed/metrics/first-contentful-paint.js'),
      import('lighthouse/core/computed/metrics/largest-contentful-paint.js'),
      import('lighthouse/core/computed/metrics/speed-index.js'),
      import('lighthouse/core/computed/metrics/total-blocking-time.js'),
      import('lighthouse/core/computed/metrics/interactive.js'),
      import('lighthouse/core/computed/metrics/max-potential-fid.js'),
      import('lighthouse/core/computed/metrics/time-to-first-byte.js'),
    ]);
    const m = (x: unknown) => x as ComputedMetric;
    return {
      fcp: m(fcp.FirstContentfulPaint),
      lcp: m(lcp.LargestContentfulPaint),
      si: m(si.SpeedIndex),
      tbt: m(tbt.TotalBlockingTime),
      tti: m(tti.Interactive),
      fid: m(fid.MaxPotentialFID),
      ttfb: m(ttfb.TimeToFirstByte),
    };
  })();
  metricsLoaded.catch(() => (metricsLoaded = undefined));
  return metricsLoaded;
}

/**
 * Loads Lighthouse's metric computations ahead of a scan that simulates, so the first page does not
 * spend its time budget on module loading.
 */
export async function prepareSimulation(): Promise<void> {
  await lighthouseMetrics();
}

/** Why Lighthouse could not compute a metric (its error code when it gives one). */
function reason(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return e.code ?? e.message ?? String(err);
}

/**
 * The metrics Lighthouse's `simulate` throttling gives for the recorded load (ms), and why each one
 * it could not compute failed (Lighthouse's reason, e.g. NO_LCP, or "No response time for origin"
 * for TTFB when the document never finished).
 */
export async function simulateMetrics(
  data: MetricComputationData,
  context: ComputedContext = { computedCache: new Map() },
): Promise<{ metrics: Partial<SimulatedMetrics>; failures: Partial<Record<keyof SimulatedMetrics, string>> }> {
  const metrics: Partial<SimulatedMetrics> = {};
  const failures: Partial<Record<keyof SimulatedMetrics, string>> = {};
  const all = await lighthouseMetrics();
  for (const [name, metric] of Object.entries(all) as Array<[keyof SimulatedMetrics, ComputedMetric]>) {
    try {
      metrics[name] = (await metric.request(data, context)).timing;
    } catch (err) {
      failures[name] = reason(err);
    }
  }
  return { metrics, failures };
}

/** "TTFB (No response time for origin), LCP (NO_LCP)" */
export function describeFailures(failures: Partial<Record<keyof SimulatedMetrics, string>>): string {
  return Object.entries(failures)
    .map(([name, why]) => `${name.toUpperCase()} (${why})`)
    .join(', ');
}
