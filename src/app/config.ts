import { isIP } from 'node:net';
import { cpus, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { PLANS, planRules, type Plan } from '../domain/plans.js';
import { DEFAULT_SPEC_MAX_OPERATIONS } from '../engines/security/spec-size.js';

export type Role = 'all' | 'api' | 'worker';
export type Deployment = 'self-hosted' | 'hosted';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  redisUrl?: string;
  role: Role;
  deployment: Deployment;
  /** Public base address of this service, e.g. https://vigil.example.com (used in links). */
  publicUrl?: string;
  /** Address of the web dashboard. */
  appUrl: string;
  /**
   * True when appUrl is only a guess (self-hosted, neither VIGIL_APP_URL nor VIGIL_PUBLIC_URL set): the
   * listening address, which a browser elsewhere (or PORT=0) may not reach; a request's own origin is better.
   */
  appUrlGuessed: boolean;
  syncKey?: string;
  payment: {
    secretKey?: string;
    webhookSecret?: string;
    priceIds: Partial<Record<Exclude<Plan, 'free'>, string>>;
    apiBase?: string;
  };
  chromiumPath?: string;
  /** Pages a worker process renders at once (per scan, below options.concurrency). */
  browserMaxPages: number;
  /** Pages a Chromium serves before it is replaced. */
  browserRecyclePages: number;
  /** Chromium memory (MB, PSS) at or over which a worker's new pages wait (VIGIL_BROWSER_MEMORY_MB); 0: no budget. */
  browserMemoryMb: number;
  workerConcurrency: number;
  /** Requests per window per plan; null = unlimited. */
  rateLimits: Record<Plan, number | null>;
  rateLimitWindowSeconds: number;
  /** Requests per client address per SIGNUP_RATE_WINDOW_SECONDS to each public sign-up route (start, claim). */
  signupRateLimit: number;
  /** Request bodies still being received at once, per client address and per tenant, in one process. */
  openBodies: { perAddress: number; perTenant: number };
  /** Scans queued or running at once per tenant, per plan. */
  concurrentScans: Record<Plan, number>;
  logLevel: string;
  bodyLimitBytes: number;
  /** 32-byte key for target credentials at rest and signed artifact links; from the environment or a key file in the data dir. */
  encryptionKey?: Buffer;
  /** Worker lease: a scan whose worker stops renewing it for this long is re-queued (once) or failed. */
  scanLeaseSeconds: number;
  /** A running scan with no progress for this long is failed as timed out. */
  scanStallSeconds: number;
  /** Ceiling on the time one security scan spends on its target; past it the rest is not tested (engines/security/ceiling.ts). */
  scanMaxSeconds: number;
  /** Largest decoded spec_content / uploaded spec accepted. */
  specMaxBytes: number;
  /** Most operations a spec may have: an inline spec over it is refused at start (422), a fetched one fails the scan. */
  specMaxOperations: number;
  /** Seconds between WebSocket pings; a socket that misses one pong is dropped. */
  wsPingSeconds: number;
  /** Live sockets open at once per tenant, per plan (across api processes when Redis is configured). */
  liveSockets: Record<Plan, number>;
  /** Live sockets open at once in one api process, all tenants together. */
  liveSocketsPerProcess: number;
  /** Lifetime of signed artifact (screenshot) links. */
  artifactLinkSeconds: number;
  /** On SIGTERM, how long running scans may take to finish before they are re-queued. */
  shutdownGraceSeconds: number;
  /** OpenAI-compatible chat-completions service behind POST /llm/generate; unset: 503 LLM_NOT_CONFIGURED. */
  llm: { url?: string; model: string; apiKey?: string; timeoutSeconds: number };
  /** Dashboard sessions (docs/sso.md): idle and absolute expiry; http:// identity providers (local tests only). */
  sessions: { idleSeconds: number; absoluteSeconds: number };
  ssoAllowHttp: boolean;
  /** DNS servers for the email-domain proof (VIGIL_DNS_SERVERS, `ip` or `ip:port`, comma-separated); unset: the system's. */
  dnsServers?: string[];
  /**
   * `GET /metrics` (docs/operators.md): served only when one of these is set. With `port`, on a listener of
   * its own (on `host`); else on the API server. `token`, when set, is required wherever it is served.
   */
  metrics: { token?: string; port?: number };
}

/** One line naming the variable and what is wrong with it; start-up stops on it. */
export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function optional(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function optionalInteger(env: Env, name: string, min: number, max: number): number | undefined {
  return optional(env, name) === undefined ? undefined : integer(env, name, 0, min, max);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function url(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL, got "${redactUrl(raw)}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw.replace(/\/+$/, '');
}

/** `ip`, `ip:port` or `[ipv6]:port`, comma-separated, as node:dns setServers takes them. */
function dnsServers(env: Env, name: string): string[] | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  const servers = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const server of servers) {
    const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(server) ?? /^([^:]+)(?::(\d+))?$/.exec(server) ?? [server, server];
    const port = match[2] === undefined ? 53 : Number(match[2]);
    if (isIP(match[1] ?? '') === 0 || port < 1 || port > 65535) throw new ConfigError(name, `must list IP addresses (with an optional :port), got "${server}"`);
  }
  return servers;
}

function redactUrl(raw: string): string {
  return raw.replace(/\/\/[^@/]*@/, '//***@');
}

/** `free=1,pro=3`: per-plan whole numbers of at least 1; a plan left out keeps its default. */
function planCounts(env: Env, name: string, rule: 'concurrentScans' | 'liveSockets', max: number): Record<Plan, number> {
  const limits = Object.fromEntries(PLANS.map((p) => [p, planRules(p)[rule]])) as Record<Plan, number>;
  const raw = optional(env, name);
  if (raw === undefined) return limits;
  for (const part of raw.split(',')) {
    const match = /^\s*(free|pro|team|enterprise)\s*=\s*(\d{1,9})\s*$/.exec(part);
    if (!match || Number(match[2]) < 1 || Number(match[2]) > max) {
      throw new ConfigError(name, `must look like "free=1,pro=3" with values from 1 to ${max}, got "${part.trim()}"`);
    }
    limits[match[1] as Plan] = Number(match[2]);
  }
  return limits;
}

/** VIGIL_METRICS_TOKEN and VIGIL_METRICS_PORT, checked against the role and PORT. */
function metricsSettings(env: Env, role: Role, port: number): Config['metrics'] {
  const token = optional(env, 'VIGIL_METRICS_TOKEN');
  if (token !== undefined && !/^[\x21-\x7e]{16,512}$/.test(token)) {
    throw new ConfigError('VIGIL_METRICS_TOKEN', 'must be 16 to 512 visible ASCII characters without spaces, e.g. openssl rand -hex 32');
  }
  const metricsPort = optionalInteger(env, 'VIGIL_METRICS_PORT', 0, 65535);
  if (metricsPort !== undefined && metricsPort !== 0 && role !== 'worker' && metricsPort === port) {
    throw new ConfigError('VIGIL_METRICS_PORT', `must differ from PORT (${port}): the metrics have a listener of their own`);
  }
  // A worker serves no HTTP: a token alone would leave its metrics nowhere.
  if (role === 'worker' && token !== undefined && metricsPort === undefined) {
    throw new ConfigError(
      'VIGIL_METRICS_PORT',
      'is required for metrics when VIGIL_ROLE=worker: a worker serves no HTTP, so VIGIL_METRICS_TOKEN alone exposes nothing',
    );
  }
  return { token, port: metricsPort };
}

/** 32 bytes, given as 64 hex characters or base64. */
function encryptionKey(env: Env): Buffer | undefined {
  const raw = optional(env, 'VIGIL_ENCRYPTION_KEY');
  if (raw === undefined) return undefined;
  const bytes = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (bytes.length !== 32) throw new ConfigError('VIGIL_ENCRYPTION_KEY', 'must be 32 bytes, as 64 hex characters or base64');
  return bytes;
}

/**
 * `VIGIL_RATE_LIMITS`: `free=10,pro=60,team=200,enterprise=1000`; a plan left out keeps its default
 * (hosted) or stays unlimited (self-hosted); `unlimited` or `0` lifts the limit for that plan.
 */
function rateLimits(env: Env, deployment: Deployment): Record<Plan, number | null> {
  const limits = Object.fromEntries(PLANS.map((p) => [p, deployment === 'hosted' ? planRules(p).rateLimitPerMinute : null])) as Record<Plan, number | null>;
  const raw = optional(env, 'VIGIL_RATE_LIMITS');
  if (raw === undefined) return limits;
  for (const part of raw.split(',')) {
    const match = /^\s*(free|pro|team|enterprise)\s*=\s*(\d+|unlimited)\s*$/.exec(part);
    if (!match) throw new ConfigError('VIGIL_RATE_LIMITS', `must look like "free=10,pro=60", got "${part.trim()}"`);
    const value = match[2] === 'unlimited' || match[2] === '0' ? null : Number(match[2]);
    limits[match[1] as Plan] = value;
  }
  return limits;
}

export function loadConfig(env: Env = process.env): Config {
  const deployment = oneOf(env, 'VIGIL_DEPLOYMENT', ['self-hosted', 'hosted'] as const, 'self-hosted');
  const secretKey = optional(env, 'PAYMENT_SECRET_KEY');
  const webhookSecret = optional(env, 'PAYMENT_WEBHOOK_SECRET');
  if (deployment === 'hosted') {
    if (!secretKey) throw new ConfigError('PAYMENT_SECRET_KEY', 'is required when VIGIL_DEPLOYMENT=hosted');
    if (!webhookSecret) throw new ConfigError('PAYMENT_WEBHOOK_SECRET', 'is required when VIGIL_DEPLOYMENT=hosted');
  }
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = optional(env, 'HOST') ?? '127.0.0.1';
  const role = oneOf(env, 'VIGIL_ROLE', ['all', 'api', 'worker'] as const, 'all');
  // A worker serves no HTTP: the links it writes (notifications' dashboard_url, compliance download_url)
  // would otherwise name its own address, where nothing listens.
  if (role === 'worker' && !url(env, 'VIGIL_PUBLIC_URL', ['http:', 'https:'])) {
    throw new ConfigError(
      'VIGIL_PUBLIC_URL',
      'is required when VIGIL_ROLE=worker: the links a worker writes (notification dashboard_url, compliance download_url) must name the address clients reach the API at',
    );
  }
  return {
    port,
    host,
    dataDir: resolve(optional(env, 'VIGIL_DATA_DIR') ?? './data'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    role,
    deployment,
    publicUrl: url(env, 'VIGIL_PUBLIC_URL', ['http:', 'https:']),
    appUrl: url(env, 'VIGIL_APP_URL', ['http:', 'https:']) ?? defaultAppUrl(deployment, url(env, 'VIGIL_PUBLIC_URL', ['http:', 'https:']), host, port),
    appUrlGuessed: deployment === 'self-hosted' && !url(env, 'VIGIL_APP_URL', ['http:', 'https:']) && !url(env, 'VIGIL_PUBLIC_URL', ['http:', 'https:']),
    syncKey: optional(env, 'SERVICE_APP_SYNC_KEY'),
    payment: {
      secretKey,
      webhookSecret,
      priceIds: {
        pro: optional(env, 'PAYMENT_PRICE_ID_PRO'),
        team: optional(env, 'PAYMENT_PRICE_ID_TEAM'),
        enterprise: optional(env, 'PAYMENT_PRICE_ID_ENTERPRISE'),
      },
      apiBase: url(env, 'PAYMENT_API_BASE', ['http:', 'https:']),
    },
    chromiumPath: optional(env, 'CHROMIUM_PATH'),
    browserMaxPages: integer(env, 'VIGIL_BROWSER_MAX_PAGES', Math.max(2, Math.min(8, cpus().length * 2)), 1, 64),
    browserRecyclePages: integer(env, 'VIGIL_BROWSER_RECYCLE_PAGES', 200, 1, 1_000_000),
    browserMemoryMb: integer(env, 'VIGIL_BROWSER_MEMORY_MB', defaultBrowserMemoryMb(), 0, 1_000_000),
    workerConcurrency: integer(env, 'VIGIL_WORKER_CONCURRENCY', 2, 1, 64),
    rateLimits: rateLimits(env, deployment),
    rateLimitWindowSeconds: integer(env, 'VIGIL_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 3600),
    signupRateLimit: integer(env, 'VIGIL_SIGNUP_RATE_LIMIT', 30, 1, 1_000_000),
    openBodies: {
      perAddress: integer(env, 'VIGIL_OPEN_BODIES_PER_ADDRESS', 32, 1, 100_000),
      perTenant: integer(env, 'VIGIL_OPEN_BODIES_PER_TENANT', 16, 1, 100_000),
    },
    concurrentScans: planCounts(env, 'VIGIL_CONCURRENT_SCANS', 'concurrentScans', 1_000_000),
    encryptionKey: encryptionKey(env),
    scanLeaseSeconds: integer(env, 'VIGIL_SCAN_LEASE_SECONDS', 30, 2, 3600),
    scanStallSeconds: integer(env, 'VIGIL_SCAN_STALL_SECONDS', 30 * 60, 5, 24 * 3600),
    scanMaxSeconds: integer(env, 'VIGIL_SCAN_MAX_SECONDS', 3600, 1, 7 * 24 * 3600),
    specMaxBytes: integer(env, 'VIGIL_SPEC_MAX_BYTES', 5 * 1024 * 1024, 1024, 50 * 1024 * 1024),
    specMaxOperations: integer(env, 'VIGIL_SPEC_MAX_OPERATIONS', DEFAULT_SPEC_MAX_OPERATIONS, 1, 100_000),
    wsPingSeconds: integer(env, 'VIGIL_WS_PING_SECONDS', 30, 1, 600),
    liveSockets: planCounts(env, 'VIGIL_LIVE_SOCKETS', 'liveSockets', 1_000_000),
    liveSocketsPerProcess: integer(env, 'VIGIL_LIVE_SOCKETS_MAX_PER_PROCESS', 10_000, 1, 1_000_000),
    artifactLinkSeconds: integer(env, 'VIGIL_ARTIFACT_LINK_SECONDS', 24 * 3600, 10, 30 * 24 * 3600),
    shutdownGraceSeconds: integer(env, 'VIGIL_SHUTDOWN_GRACE_SECONDS', 20, 0, 3600),
    sessions: {
      idleSeconds: integer(env, 'VIGIL_SESSION_IDLE_MINUTES', 60, 1, 7 * 24 * 60) * 60,
      absoluteSeconds: integer(env, 'VIGIL_SESSION_MAX_HOURS', 12, 1, 30 * 24) * 3600,
    },
    ssoAllowHttp: oneOf(env, 'VIGIL_SSO_ALLOW_HTTP', ['true', 'false'], 'false') === 'true',
    dnsServers: dnsServers(env, 'VIGIL_DNS_SERVERS'),
    metrics: metricsSettings(env, role, port),
    llm: {
      url: url(env, 'VIGIL_LLM_URL', ['http:', 'https:']),
      model: optional(env, 'VIGIL_LLM_MODEL') ?? 'gpt-4o-mini',
      apiKey: optional(env, 'VIGIL_LLM_API_KEY'),
      timeoutSeconds: integer(env, 'VIGIL_LLM_TIMEOUT_SECONDS', 60, 1, 600),
    },
    logLevel: oneOf(env, 'VIGIL_LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    bodyLimitBytes: integer(env, 'VIGIL_BODY_LIMIT_BYTES', 10 * 1024 * 1024, 1024, 100 * 1024 * 1024),
  };
}

/** The window of VIGIL_SIGNUP_RATE_LIMIT: 10 minutes. */
export const SIGNUP_RATE_WINDOW_SECONDS = 600;

/** Self-hosted: the dashboard this server serves at /app (docs/dashboard.md); hosted: the vendor's web application. */
/** A quarter of the machine's memory, at least 1 GB and at most 4 GB (a 10-page scan's Chromium peaked near 2 GB at default concurrency). */
function defaultBrowserMemoryMb(): number {
  return Math.max(1024, Math.min(4096, Math.floor(totalmem() / 4 / 2 ** 20)));
}

function defaultAppUrl(deployment: Deployment, publicUrl: string | undefined, host: string, port: number): string {
  if (deployment === 'hosted') return 'https://app.vigil.dev';
  const origin = publicUrl?.replace(/\/+$/, '') ?? publicBaseUrl({ host } as Config, port);
  return `${origin}/app`;
}

/**
 * What start-up says about where links point: a worker names the public URL it writes into notifications
 * and reports; an api (or all) process without VIGIL_PUBLIC_URL is warned that its links follow each
 * request's Host and that workers refuse to start without it.
 */
export function publicUrlNotice(config: Config): { level: 'info' | 'warn'; message: string } {
  if (config.publicUrl) return { level: 'info', message: `links in responses, notifications and reports point at VIGIL_PUBLIC_URL=${config.publicUrl}` };
  return {
    level: 'warn',
    message:
      "VIGIL_PUBLIC_URL is not set: links in responses follow each request's Host, and links written outside a request (notifications, " +
      'compliance download_url) use the listening address; set it behind a proxy, and on every process when api and worker run apart (a worker refuses to start without it)',
  };
}

/** The address clients use, for links in responses. */
export function publicBaseUrl(config: Config, listeningPort: number): string {
  if (config.publicUrl) return config.publicUrl;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${listeningPort}`;
}
