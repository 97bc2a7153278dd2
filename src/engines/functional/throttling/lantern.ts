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
import type { LanternWorker } from './lantern-worker.js';

/** Lighthouse's input to a metric computation (LH.Artifacts.MetricComputationDataInput). */
export interface MetricComputationData extends RecordedLoad {
  gatherContext: { gatherMode: 'navigation' };
  settings: Record<string, unknown>;
  URL: { requestedUrl: string; mainDocumentUrl: string; finalDisplayedUrl: string };
  SourceMaps: unknown[];
  simulator: null;
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
export function computationData(
  rec: RecordedLoad,
  device: Device,
  requestedUrl: string,
  documentUrl: string,
  displayedUrl = documentUrl,
): MetricComputationData {
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

/**
 * The metrics Lighthouse's `simulate` throttling gives for the recorded load (ms), computed on
 * `worker`'s thread, and why each one it could not compute failed (Lighthouse's reason, e.g.
 * NO_LCP, or "No response time for origin" for TTFB when the document never finished).
 */
export async function simulateMetrics(
  data: MetricComputationData,
  worker: LanternWorker,
): Promise<{ metrics: Partial<SimulatedMetrics>; failures: Partial<Record<keyof SimulatedMetrics, string>> }> {
  const answer = await worker.simulate(data);
  return { metrics: answer.metrics as Partial<SimulatedMetrics>, failures: answer.failures as Partial<Record<keyof SimulatedMetrics, string>> };
}

/** "TTFB (No response time for origin), LCP (NO_LCP)" */
export function describeFailures(failures: Partial<Record<keyof SimulatedMetrics, string>>): string {
  return Object.entries(failures)
    .map(([name, why]) => `${name.toUpperCase()} (${why})`)
    .join(', ');
}
