/**
 * The process's Prometheus metrics (served as `GET /metrics`, see docs/operators.md): one registry per
 * process, as Prometheus scrapes each api and worker process on its own. The places that own an event
 * update these directly; a call is an increment or an observation, cheap enough to make whether or not the
 * metrics are served. What costs more (the default process metrics, the queue-depth query at scrape time,
 * counting every request) is switched on only when they are.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { PLANS, type Plan } from '../domain/plans.js';

export const registry = new Registry();

/** `text/plain; version=0.0.4; charset=utf-8`: the Prometheus text exposition format. */
export const METRICS_CONTENT_TYPE = registry.contentType;

const registers = [registry];

export const httpRequests = new Counter({
  name: 'vigil_http_requests_total',
  help: 'HTTP requests answered, by method, route pattern (never the raw URL; "unmatched" for unknown routes) and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers,
});

export const scanQueueDepth = new Gauge({
  name: 'vigil_scan_queue_depth',
  help: "Scans queued and not yet claimed, by the tenant's plan (the whole cluster, as this process reads the store at scrape time)",
  labelNames: ['plan'] as const,
  registers,
  async collect() {
    await collectQueueDepth(this);
  },
});

export const scanQueueWait = new Histogram({
  name: 'vigil_scan_queue_wait_seconds',
  help: "Time a scan waited in the queue before a worker claimed it, by the tenant's plan: from its creation, or from when it was put back in the queue (shutdown, lapsed lease), to each claim",
  labelNames: ['plan'] as const,
  buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
  registers,
});

export const scanDuration = new Histogram({
  name: 'vigil_scan_duration_seconds',
  help: 'Time a worker spent running a scan, by mode and outcome (completed, failed, cancelled, lost, shutdown, error)',
  labelNames: ['mode', 'outcome'] as const,
  buckets: [1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600],
  registers,
});

export const workerSlots = new Gauge({ name: 'vigil_worker_slots', help: 'Scans this process may run at once (VIGIL_WORKER_CONCURRENCY)', registers });

export const workerSlotsInUse = new Gauge({ name: 'vigil_worker_slots_in_use', help: 'Scans this process is running now', registers });

export const leaseLosses = new Counter({
  name: 'vigil_scan_lease_losses_total',
  help: 'Running scans this process stopped because their lease was no longer its own (it lapsed and the scan was re-queued, failed or taken by another worker)',
  registers,
});

export const chromiumPagesOpen = new Gauge({ name: 'vigil_chromium_pages_open', help: 'Chromium pages open now (one browser context each)', registers });

export const chromiumMemory = new Gauge({
  name: 'vigil_chromium_memory_bytes',
  help: "Chromium's memory (PSS of its processes) when a page last started under the memory budget (VIGIL_BROWSER_MEMORY_MB)",
  registers,
});

export const notificationDeliveries = new Counter({
  name: 'vigil_notification_deliveries_total',
  help: 'Outbound notifications (chat, team-chat and webhook channels) by channel kind, event and outcome (delivered or failed, after retries)',
  labelNames: ['channel', 'event', 'outcome'] as const,
  registers,
});

export const rateLimitRefusals = new Counter({
  name: 'vigil_rate_limit_refusals_total',
  help: 'Requests refused with 429 RATE_LIMIT_EXCEEDED, by limit (tenant: the plan\'s request rate; signup, claim: per client address) and plan ("none" for per-address limits)',
  labelNames: ['scope', 'plan'] as const,
  registers,
});

/** Why a request was refused before any route ran (bounded: one value per check). */
export type EdgeRefusal =
  | 'open_bodies_address'
  | 'open_bodies_tenant'
  | 'uri_too_long'
  | 'headers_too_large'
  | 'malformed'
  | 'request_timeout'
  | 'missing_host'
  | 'bad_url'
  | 'shutting_down'
  | 'nul_text'
  | 'json_bounds'
  | 'body_too_large';

export const edgeRefusals = new Counter({
  name: 'vigil_http_refusals_total',
  help: 'Requests refused by the checks that run before (or instead of) a route handler, by reason: open-body caps, over-long URL, oversized headers, malformed or timed-out requests, missing Host, bad path encoding, shutting down, NUL in path or query, JSON body bounds, body too large',
  labelNames: ['reason'] as const,
  registers,
});

/** Counts one refusal (cheap: the bound counter of each reason is kept). */
export function countRefusal(reason: EdgeRefusal): void {
  (boundRefusals[reason] ??= edgeRefusals.labels(reason)).inc();
}
const boundRefusals: Partial<Record<EdgeRefusal, { inc(): void }>> = {};

/** How a live-socket upgrade ended (bounded). */
export type LiveUpgradeOutcome = 'accepted' | 'not_websocket' | 'invalid_key' | 'rate_limited' | 'tenant_sockets' | 'process_sockets' | 'error';

export const liveUpgrades = new Counter({
  name: 'vigil_live_socket_upgrades_total',
  help: 'Live socket (/ws/live) upgrade requests, by outcome: accepted, or refused (not_websocket 426, invalid_key 401, rate_limited 429, tenant_sockets and process_sockets 429, error)',
  labelNames: ['outcome'] as const,
  registers,
});

export const liveSocketsOpen = new Gauge({ name: 'vigil_live_sockets_open', help: 'Live sockets this api process holds open now', registers });

const processInfo = new Gauge({
  name: 'vigil_process_info',
  help: "Always 1: this process's version, role (all, api, worker) and store (sqlite, postgres)",
  labelNames: ['version', 'role', 'store'] as const,
  registers,
});

/** Scans queued per plan, read from the store. */
export type QueueDepthSource = () => Promise<Array<{ plan: Plan; queued: number }>>;

let queueDepthSource: QueueDepthSource | undefined;

async function collectQueueDepth(gauge: Gauge<'plan'>): Promise<void> {
  const source = queueDepthSource;
  if (!source) return;
  gauge.reset();
  try {
    const counts = await source();
    for (const plan of PLANS) gauge.set({ plan }, counts.find((c) => c.plan === plan)?.queued ?? 0);
  } catch {
    // The store does not answer: no value rather than a stale one (and the rest of the scrape still served).
  }
}

let processMetricsOn = false;

/**
 * Called by the composition root of a process whose metrics are served: Node's process metrics (CPU,
 * memory, event loop lag, handles, GC), the process's identity, and the queue depth read from `source`
 * at each scrape. Returns what undoes the queue-depth source (the process metrics stay on).
 */
export function enableMetrics(identity: { version: string; role: string; store: string }, source?: QueueDepthSource): () => void {
  if (!processMetricsOn) {
    processMetricsOn = true;
    collectDefaultMetrics({ register: registry });
  }
  processInfo.reset();
  processInfo.set(identity, 1);
  queueDepthSource = source;
  return () => {
    if (queueDepthSource === source) queueDepthSource = undefined;
  };
}

/** The registry in the Prometheus text format. */
export function renderMetrics(): Promise<string> {
  return registry.metrics();
}
