/**
 * The shapes of the artifacts the gatherers collect (types only, so types.ts and the gatherers do not
 * import each other).
 */
import type { Throttling } from '../../domain/scan.js';
import type { AxeGathered } from './accessibility/gather.js';
import type { Metrics } from './performance/metrics.js';

export type AxeResults = AxeGathered;

export interface PageLoad {
  /** HTTP status of the main document. */
  status: number;
  /** The page's URL after redirects (and after the page's own history changes). */
  finalUrl: string;
  /** The URL the main document was served from, after redirects. */
  documentUrl: string;
  /** The main response's Content-Security-Policy header(s), "" when none (the capture reads it). */
  contentSecurityPolicy: string;
  metrics: Metrics;
  /** The page never went quiet within the cap: TTI and TBT cover the load until then. */
  capped: boolean;
  /** The load event had not come by options.timeout: measured as the page was then. */
  loadTimedOut: boolean;
  /** How the metrics were obtained (devtools when `simulate` could not be computed). */
  throttling: Throttling;
  /** `simulate`, as gathered: the simulation of this observed load, under way (the `throttled` artifact awaits it). */
  simulation?: Promise<Simulation>;
}

/** What `simulate` made of a recorded load: the load with the simulation's metrics, or why it could not. */
export interface Simulation {
  load: ObservedLoad;
  /** What Lighthouse could not compute (those metrics are the unthrottled ones). */
  failure?: string;
  /** Lighthouse computed some of the metrics. */
  partial?: boolean;
}

export type ObservedLoad = Omit<PageLoad, 'throttling' | 'simulation'>;

export interface RouteSettle {
  /** Whether the page went quiet before the cap. */
  settled: boolean;
  /** How long it was waited for. */
  waitedMs: number;
}
