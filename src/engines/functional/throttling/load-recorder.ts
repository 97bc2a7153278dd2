/**
 * What Lighthouse records of a navigation, for its Lantern simulation: a Chrome trace with
 * Lighthouse's own trace categories, and the DevTools protocol log of the page's Network and Page
 * events (its "devtoolsLog"), both from before the navigation until `stop()`.
 */
import TraceGatherer from 'lighthouse/core/gather/gatherers/trace.js';
import type { CDPSession, Page } from 'playwright-core';

/** One protocol event as Lighthouse logs it (the page's own target: type page, root session). */
export interface DevtoolsMessage {
  method: string;
  params: unknown;
  targetType: 'page';
  sessionId?: string;
}

export interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  [key: string]: unknown;
}

export interface RecordedLoad {
  trace: { traceEvents: TraceEvent[] };
  devtoolsLog: DevtoolsMessage[];
}

/** Protocol events Lighthouse's DevtoolsLog gatherer keeps. */
const LOGGED = /^(Page|Network|Target|Runtime)\./;

/** Lighthouse's trace categories (its Trace gatherer's defaults). */
export function traceCategories(): string[] {
  return (TraceGatherer as unknown as { getDefaultTraceCategories(): string[] }).getDefaultTraceCategories();
}

/** How long ending the trace may take before the recording is given up. */
const END_TIMEOUT_MS = 15_000;

export class LoadRecorder {
  private readonly log: DevtoolsMessage[] = [];
  private readonly events: TraceEvent[] = [];
  private recording = true;
  private constructor(private readonly cdp: CDPSession) {}

  /** Starts the trace and the log on the page (call before navigating). */
  static async start(page: Page): Promise<LoadRecorder> {
    const cdp = await page.context().newCDPSession(page);
    const rec = new LoadRecorder(cdp);
    try {
      cdp.on('event', ({ method, params }) => {
        if (rec.recording && LOGGED.test(method)) rec.log.push({ method, params, targetType: 'page' });
      });
      cdp.on('Tracing.dataCollected', (e) => {
        for (const ev of e.value) rec.events.push(ev as unknown as TraceEvent);
      });
      await cdp.send('Page.enable');
      await cdp.send('Network.enable');
      await cdp.send('Tracing.start', { categories: traceCategories().join(','), options: 'sampling-frequency=10000' });
    } catch (err) {
      await cdp.detach().catch(() => undefined);
      throw err;
    }
    return rec;
  }

  /** Ends the trace and the log; what was recorded. */
  async stop(): Promise<RecordedLoad> {
    this.recording = false;
    try {
      const complete = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the trace did not end within ${END_TIMEOUT_MS / 1000} s`)), END_TIMEOUT_MS);
        this.cdp.once('Tracing.tracingComplete', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      complete.catch(() => undefined);
      await this.cdp.send('Tracing.end');
      await complete;
    } finally {
      await this.cdp.detach().catch(() => undefined);
    }
    return { trace: { traceEvents: this.events }, devtoolsLog: this.log };
  }

  /** Ends the recording without its results (the load failed). */
  async abandon(): Promise<void> {
    this.recording = false;
    await this.cdp.send('Tracing.end').catch(() => undefined);
    await this.cdp.detach().catch(() => undefined);
  }
}
