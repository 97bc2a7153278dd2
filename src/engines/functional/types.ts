/**
 * The shapes of the functional engine (the Lighthouse shape): gatherers collect artifacts from one
 * page load, audits turn artifacts into a page's result and task verdict, and each audit sums its
 * pages up into its part of the scan's outcome. The lists are in registry.ts.
 */
import type { Logger } from 'pino';
import type { Page } from 'playwright-core';
import type { FunctionalOutcome, ScanInput, ScanOptions } from '../../domain/scan.js';
import type { ArtifactStore, BaselineStore } from '../engine.js';
import type { AxeResults, PageLoad, RouteSettle } from './artifacts.js';
import type { LanternWorker } from './throttling/lantern-worker.js';
import type { Capture } from './visual/capture.js';

/** What the gatherers collected from one page load; an artifact is absent until gathered. */
export interface Artifacts {
  /**
   * The navigation, its response and the metrics observed over the load (with `simulate`, the
   * simulation of them under way in `simulation`).
   */
  load: PageLoad;
  /** The load's metrics under options.throttling (the simulation's, once it has finished). */
  throttled: PageLoad;
  /** Links of the rendered page and routes its app navigated to (only gathered while crawling). */
  links: string[];
  /** The route has settled: client-side rendering done (gatherers/settle.ts). */
  settle: RouteSettle;
  axe: AxeResults;
  screenshot: Capture;
}
export type ArtifactName = keyof Artifacts;

/** How a page's own script routes (gatherers/routes.ts). */
export interface ClientRouting {
  /** The app routes by the URL's hash (`#/pricing`): hash routes are pages of their own. */
  hashRoutes: boolean;
  /** The app moved the page to `base` itself (pushState, replaceState, a hash): `base` was visited. */
  movedByApp: boolean;
}

/** What every page of one scan shares. */
export interface ScanEnv {
  tenantId: string;
  scanId: string;
  input: ScanInput;
  options: ScanOptions;
  artifacts: ArtifactStore;
  baselines: BaselineStore;
  logger: Logger;
  /** Milliseconds options.timeout gives one page. */
  timeoutMs: number;
  /** Where `simulate` throttling's computations run (the engine's worker thread). */
  lantern: LanternWorker;
  /** Pages are being discovered by a crawl (links are gathered and handed to `found`). */
  crawling(): boolean;
  /** Hands links found on `base` to the crawl (`routing`: what the page's client-side router did). */
  found(links: string[], base: string, fromStart: boolean, routing?: ClientRouting): void;
}

/** One page being visited. */
export interface PageEnv {
  url: string;
  /** The scan's start URL is this page (its final URL joins the site's origins). */
  isStart: boolean;
  page: Page;
  scan: ScanEnv;
  /** Notes something about the page that its results should carry (e.g. measured at the timeout). */
  warn(message: string): void;
}

export interface Gatherer<K extends ArtifactName = ArtifactName> {
  artifact: K;
  /**
   * Holds the engine's exclusive CPU lock while it runs (no other page's work overlaps it): a load
   * whose metrics are measured. Other gatherers run under the shared lock. A function is asked
   * first, holding the shared lock (it may wait for earlier work, e.g. a simulation, to know).
   */
  exclusive?: boolean | ((env: PageEnv, got: Partial<Artifacts>) => Promise<boolean>);
  /**
   * Work the gathered artifact leaves running (the simulation of a load): the page keeps the CPU
   * lock, shared, until it settles.
   */
  background?(artifact: Artifacts[K]): Promise<unknown> | undefined;
  /** Runs on every page before the navigation (e.g. to add an init script), unless skipped. */
  prepare?(env: PageEnv): Promise<void>;
  /** Skips the gatherer for this page (its artifact stays absent). */
  skip?(env: PageEnv): boolean;
  gather(env: PageEnv, got: Partial<Artifacts>): Promise<Artifacts[K]>;
  /** After the page failed: the artifact as far as it can be had without the page, if at all. */
  salvage?(env: PageEnv, got: Partial<Artifacts>): Promise<Artifacts[K] | undefined>;
}

/** An audit's verdict on one page: its result, and a failure that fails the page's task. */
export interface AuditVerdict<R> {
  result: R;
  failure?: string;
}

export interface Audit<R = unknown> {
  id: string;
  /** The task name's prefix, e.g. "Performance" ("Performance: /path"). */
  title(options: ScanOptions): string;
  requires: readonly ArtifactName[];
  /** Judges one page from its artifacts (visual also reads and writes the baseline stores). */
  run(artifacts: Artifacts, env: PageEnv): AuditVerdict<R> | Promise<AuditVerdict<R>>;
  /** This audit's part of the scan's outcome, from every page it judged (in crawl order). */
  summarize(results: R[], scan: ScanEnv): Partial<FunctionalOutcome>;
}
