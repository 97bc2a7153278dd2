/**
 * Lighthouse's metric computations on a worker thread, so a page's simulation (0.1-0.4 s of CPU
 * per page) runs while the browser audits the page (axe, screenshot) instead of before, and never
 * blocks the event loop other scans of the process share.
 *
 * The worker is JavaScript source for `new Worker(src, { eval: true })`, for the reason given in
 * security/checks/jwt/secret-search-worker.ts (it runs from `src` under vitest and from `dist`).
 * Keep it plain CommonJS JavaScript with no backticks or `${`.
 *
 * workerData: { metrics: [[name, moduleUrl, exportName]] }. Messages in: { id, data } (Lighthouse's
 * MetricComputationDataInput); out: { id, metrics: { name: ms }, failures: { name: reason } } or
 * { id, error }.
 */
import { Worker } from 'node:worker_threads';

const LANTERN_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const loaded = Promise.all(workerData.metrics.map((m) => import(m[1]).then((mod) => [m[0], mod[m[2]]])));
loaded.then(() => parentPort.postMessage({ ready: true }), (err) => parentPort.postMessage({ ready: false, error: String((err && err.message) || err) }));
const reason = (err) => (err && (err.code || err.message)) || String(err);
parentPort.on('message', async (msg) => {
  try {
    const all = await loaded;
    const metrics = {};
    const failures = {};
    const context = { computedCache: new Map() };
    for (const [name, metric] of all) {
      try {
        metrics[name] = (await metric.request(msg.data, context)).timing;
      } catch (err) {
        failures[name] = reason(err);
      }
    }
    parentPort.postMessage({ id: msg.id, metrics: metrics, failures: failures });
  } catch (err) {
    parentPort.postMessage({ id: msg.id, error: 'Lighthouse could not be loaded: ' + reason(err) });
  }
});
`;

/** Lighthouse's metric computations, each by its name in the results. */
const METRICS: Array<[name: string, module: string, exportName: string]> = [
  ['fcp', 'lighthouse/core/computed/metrics/first-contentful-paint.js', 'FirstContentfulPaint'],
  ['lcp', 'lighthouse/core/computed/metrics/largest-contentful-paint.js', 'LargestContentfulPaint'],
  ['si', 'lighthouse/core/computed/metrics/speed-index.js', 'SpeedIndex'],
  ['tbt', 'lighthouse/core/computed/metrics/total-blocking-time.js', 'TotalBlockingTime'],
  ['tti', 'lighthouse/core/computed/metrics/interactive.js', 'Interactive'],
  ['fid', 'lighthouse/core/computed/metrics/max-potential-fid.js', 'MaxPotentialFID'],
  ['ttfb', 'lighthouse/core/computed/metrics/time-to-first-byte.js', 'TimeToFirstByte'],
];

export interface LanternAnswer {
  metrics: Record<string, number>;
  failures: Record<string, string>;
}

interface Pending {
  resolve(a: LanternAnswer): void;
  reject(err: Error): void;
}

/** One worker thread, started on first use, doing one simulation after another. */
export class LanternWorker {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  private loading: Promise<void> | undefined;

  /** Starts the worker and waits until it has loaded Lighthouse (about a second, once per thread). */
  ready(): Promise<void> {
    this.thread();
    return this.loading!;
  }

  /** The simulated metrics of one recorded load (Lighthouse's computation input). */
  simulate(data: unknown): Promise<LanternAnswer> {
    const worker = this.thread();
    const id = this.nextId++;
    return new Promise<LanternAnswer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref(); // kept alive while it owes an answer
      worker.postMessage({ id, data });
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    await w?.terminate();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(LANTERN_WORKER_SOURCE, {
      eval: true,
      workerData: { metrics: METRICS.map(([name, spec, exportName]) => [name, import.meta.resolve(spec), exportName]) },
    });
    worker.unref();
    let loaded: (ok: boolean, error?: string) => void = () => undefined;
    this.loading = new Promise<void>((resolve, reject) => {
      loaded = (ok, error) => (ok ? resolve() : reject(new Error(`Lighthouse could not be loaded: ${error}`)));
    });
    this.loading.catch(() => undefined);
    worker.on('message', (m: { id: number; error?: string; ready?: boolean } & Partial<LanternAnswer>) => {
      if (m.ready !== undefined) return loaded(m.ready, m.error);
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0) worker.unref();
      if (m.error !== undefined) p.reject(new Error(m.error));
      else p.resolve({ metrics: m.metrics ?? {}, failures: m.failures ?? {} });
    });
    const fail = (err: Error) => {
      loaded(false, err.message);
      if (this.worker === worker) this.worker = undefined;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`Lighthouse's worker exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }
}
