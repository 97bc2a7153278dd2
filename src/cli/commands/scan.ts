/** `vigil scan <url>`: start a scan, follow it, print a summary, write reports, notify, exit 0/1/2/3/4. */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { ApiFailure, exitCodeFor, type VigilClient } from '../client.js';
import { CONNECTION_HELP, CONNECTION_OPTIONS, clientFrom, printJson, table } from '../common.js';
import { toJunit } from '../formats/junit.js';
import { toSarif } from '../formats/sarif.js';
import { parseCommandArgs, UsageError } from '../usage-error.js';
import { scanEvents, sendAll, type Channel } from '../../notifications/index.js';
import { thresholdReached, type Severity } from '../../domain/scan.js';

const FAIL_ON_LEVELS = ['critical', 'high', 'medium', 'low'] as const;
export const REPORT_FORMATS = ['html', 'json', 'csv', 'sarif', 'junit'] as const;

export const SCAN_HELP = `Usage: vigil scan <url> [options]

Starts a scan, follows it until it finishes, prints a summary and exits with:
  0 passed   1 findings at or above --fail-on   2 scan failed or cancelled
  3 usage or configuration error   4 refused by the server (401/402/403/429: key, quota, plan, concurrency)

Scan:
  --mode <security|functional|full>   Default security
  --spec <url|file>                   OpenAPI/Swagger spec: a URL, or a local file (uploaded)
  --auth-type <bearer|header|basic|oauth2|none>   First identity (inferred from the flags below when absent)
  --token <t>  --header-name <n> --header-value <v>  --username <u> --password <p>
  --oauth2-token-url <url> --oauth2-client-id <id> --oauth2-client-secret <s> --oauth2-scope <scope>
  --auth2-type <bearer|header|basic|oauth2>      Second identity (another ordinary user), for BOLA/BFLA checks;
  --auth2-token <t>  --auth2-header-name <n> --auth2-header-value <v>  --auth2-username <u> --auth2-password <p>
  --auth2-oauth2-token-url <url> --auth2-oauth2-client-id <id> --auth2-oauth2-client-secret <s> --auth2-oauth2-scope <scope>
  --safe-mode                         Security: skip destructive or global operations (reset, seed, purge, DELETE on a collection)
  --concurrency <n>  --timeout <seconds>
  --fail-on <critical|high|medium|low>   Exit 1 when a finding is at or above this severity
  --exclude <pattern>                 Repeatable
  --reset-baseline                    Functional: replace the visual baseline
  --pages <url,...>  --max-pages <n>  --diff-threshold <percent>  --viewport <WxH>
  --mask <selector>  (repeatable)  --device <desktop|mobile>  --a11y-profile <wcag21aa|wcag22aa|section508>
Output:
  --output <file>                     Report; format from the extension (.html .json .csv .sarif .xml)
  --format <html|json|csv|sarif|junit>  Override the format
  --poll-interval <seconds>           Default 5 (Retry-After on 429 is honoured)
  --no-wait                           Print the scan id and exit 0 without following it
  --notify <slack|teams|webhook>=<url>  Repeatable; sent by the CLI when the scan ends
  --notify-header <Name: value>       Header for webhook channels (repeatable)
  --notify-secret <secret>            HMAC key for X-Vigil-Signature on webhook channels
  --notify-timeout <seconds>          Default 10
${CONNECTION_HELP}

Examples:
  vigil scan https://api.example.com --spec openapi.yaml --fail-on high --output vigil.sarif
  vigil scan https://shop.example.com --mode functional --pages /,/cart --viewport 1280x720
  VIGIL_API_KEY=svc_pk_... vigil scan https://api.example.com --spec https://api.example.com/openapi.json --json
  vigil scan https://api.example.com --spec openapi.yaml --token "$ALICE_TOKEN" --auth2-token "$BOB_TOKEN" --safe-mode`;

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  mode: { type: 'string' },
  spec: { type: 'string' },
  'auth-type': { type: 'string' },
  token: { type: 'string' },
  'header-name': { type: 'string' },
  'header-value': { type: 'string' },
  username: { type: 'string' },
  password: { type: 'string' },
  'oauth2-token-url': { type: 'string' },
  'oauth2-client-id': { type: 'string' },
  'oauth2-client-secret': { type: 'string' },
  'oauth2-scope': { type: 'string' },
  'auth2-type': { type: 'string' },
  'auth2-token': { type: 'string' },
  'auth2-header-name': { type: 'string' },
  'auth2-header-value': { type: 'string' },
  'auth2-username': { type: 'string' },
  'auth2-password': { type: 'string' },
  'auth2-oauth2-token-url': { type: 'string' },
  'auth2-oauth2-client-id': { type: 'string' },
  'auth2-oauth2-client-secret': { type: 'string' },
  'auth2-oauth2-scope': { type: 'string' },
  'safe-mode': { type: 'boolean' },
  concurrency: { type: 'string' },
  timeout: { type: 'string' },
  'fail-on': { type: 'string' },
  exclude: { type: 'string', multiple: true },
  'reset-baseline': { type: 'boolean' },
  pages: { type: 'string', multiple: true },
  'max-pages': { type: 'string' },
  'diff-threshold': { type: 'string' },
  viewport: { type: 'string' },
  mask: { type: 'string', multiple: true },
  device: { type: 'string' },
  'a11y-profile': { type: 'string' },
  output: { type: 'string', short: 'o' },
  format: { type: 'string' },
  'poll-interval': { type: 'string' },
  'no-wait': { type: 'boolean' },
  notify: { type: 'string', multiple: true },
  'notify-header': { type: 'string', multiple: true },
  'notify-secret': { type: 'string' },
  'notify-timeout': { type: 'string' },
} as const;

function int(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer >= ${min}`);
  return n;
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

export function formatFor(output: string, format?: string): (typeof REPORT_FORMATS)[number] {
  if (format) return oneOf('format', format === 'xml' ? 'junit' : format, REPORT_FORMATS)!;
  const ext = extname(output).slice(1).toLowerCase();
  const byExt: Record<string, (typeof REPORT_FORMATS)[number]> = { html: 'html', htm: 'html', json: 'json', csv: 'csv', sarif: 'sarif', xml: 'junit', junit: 'junit' };
  const f = byExt[ext];
  if (!f) throw new UsageError(`cannot tell the report format from "${basename(output)}": use .html .json .csv .sarif or .xml, or --format`);
  return f;
}

export function parseChannels(notify: string[] = [], headers: string[] = [], secret?: string): Channel[] {
  const hdrs: Record<string, string> = {};
  for (const h of headers) {
    const i = h.indexOf(':');
    if (i <= 0) throw new UsageError(`--notify-header must be "Name: value", got "${h}"`);
    hdrs[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  return notify.map((n) => {
    const i = n.indexOf('=');
    const kind = n.slice(0, Math.max(0, i));
    const url = n.slice(i + 1);
    if (i <= 0 || !['slack', 'teams', 'webhook'].includes(kind)) throw new UsageError(`--notify must be slack=<url>, teams=<url> or webhook=<url>, got "${n}"`);
    try {
      const u = new URL(url);
      if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error();
    } catch {
      throw new UsageError(`--notify ${kind}: "${url}" is not an http(s) URL`);
    }
    return kind === 'webhook' ? { kind, url, headers: hdrs, ...(secret ? { secret } : {}) } : { kind: kind as 'slack' | 'teams', url };
  });
}

type Values = ReturnType<typeof parse>['values'];
function parse(args: string[]) {
  return parseCommandArgs(args, OPTIONS, true);
}

/** Request field of each identity flag; the second identity's flags carry the prefix `auth2-`. */
const AUTH_FIELDS = [['token', 'token'], ['header-name', 'header_name'], ['header-value', 'header_value'], ['username', 'username'], ['password', 'password'], ['oauth2-token-url', 'oauth2_token_url'], ['oauth2-client-id', 'oauth2_client_id'], ['oauth2-client-secret', 'oauth2_client_secret'], ['oauth2-scope', 'oauth2_scope']] as const;
const AUTH_TYPES = ['bearer', 'header', 'basic', 'oauth2', 'none'] as const;

/** One identity from its flags (`--token`... or `--auth2-token`...), the type inferred when not given; undefined when none is set. */
function identity(v: Values, prefix: '' | 'auth2-'): Record<string, string> | undefined {
  const typeFlag = prefix ? 'auth2-type' : 'auth-type';
  const type = oneOf(typeFlag, v[typeFlag], prefix ? AUTH_TYPES.filter((t) => t !== 'none') : AUTH_TYPES);
  const fields: Record<string, string> = {};
  for (const [flag, field] of AUTH_FIELDS) {
    const value = v[`${prefix}${flag}` as keyof Values];
    if (typeof value === 'string') fields[field] = value;
  }
  if (!type && Object.keys(fields).length === 0) return undefined;
  const inferred = type ?? (fields.token ? 'bearer' : fields.header_name ? 'header' : fields.username ? 'basic' : fields.oauth2_token_url ? 'oauth2' : undefined);
  if (!inferred) throw new UsageError(`--${typeFlag} is required with these ${prefix ? 'second-identity ' : ''}auth flags`);
  return { type: inferred, ...fields };
}

/** The POST /scan body from the flags (spec file content is handled by the caller). */
export function startBody(url: string, v: Values): Record<string, unknown> {
  const body: Record<string, unknown> = { url };
  const mode = oneOf('mode', v.mode, ['security', 'functional', 'full'] as const);
  if (mode) body.mode = mode;
  const primary = identity(v, '');
  const secondary = identity(v, 'auth2-');
  if (secondary && (!primary || primary.type === 'none')) throw new UsageError('--auth2-* flags describe a second identity: give the first one too (--auth-type, --token, ...)');
  if (primary) body.auth = secondary ? { ...primary, secondary } : primary;
  const options: Record<string, unknown> = {};
  const concurrency = int('concurrency', v.concurrency, 1);
  if (concurrency !== undefined) options.concurrency = concurrency;
  const timeout = int('timeout', v.timeout, 1);
  if (timeout !== undefined) options.timeout = timeout;
  const failOn = oneOf('fail-on', v['fail-on'], FAIL_ON_LEVELS);
  if (failOn) options.fail_on = failOn;
  if (v.exclude?.length) options.exclude = v.exclude;
  if (v['safe-mode']) options.safe_mode = true;
  if (v.pages?.length) options.pages = v.pages.flatMap((p) => p.split(',')).map((p) => p.trim()).filter(Boolean);
  const maxPages = int('max-pages', v['max-pages'], 1);
  if (maxPages !== undefined) options.max_pages = maxPages;
  if (v['diff-threshold'] !== undefined) {
    const d = Number(v['diff-threshold']);
    if (!Number.isFinite(d) || d < 0 || d > 100) throw new UsageError('--diff-threshold must be a percentage between 0 and 100');
    options.diff_threshold_percent = d;
  }
  if (v.viewport !== undefined) {
    const m = /^(\d+)x(\d+)$/i.exec(v.viewport);
    if (!m) throw new UsageError('--viewport must be WIDTHxHEIGHT, e.g. 1280x720');
    options.viewport = { width: Number(m[1]), height: Number(m[2]) };
  }
  if (v.mask?.length) options.mask = v.mask;
  const device = oneOf('device', v.device, ['desktop', 'mobile'] as const);
  if (device) options.device = device;
  const profile = oneOf('a11y-profile', v['a11y-profile'], ['wcag21aa', 'wcag22aa', 'section508'] as const);
  if (profile) options.accessibility_profile = profile;
  if (Object.keys(options).length) body.options = options;
  if (v['reset-baseline']) body.reset_baseline = true;
  return body;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** GET with Retry-After honoured on 429 RATE_LIMIT_EXCEEDED (a bounded number of times). */
async function getPatiently(client: VigilClient, path: string, query?: Record<string, string>) {
  for (let tries = 0; ; tries += 1) {
    try {
      return await client.request('GET', path, { query });
    } catch (error) {
      if (error instanceof ApiFailure && error.status === 429 && error.code !== 'CONCURRENT_LIMIT' && tries < 20) {
        await sleep(Math.max(1, error.retryAfter ?? 5) * 1000);
        continue;
      }
      throw error;
    }
  }
}

function progressLine(status: string, percent: number, tty: boolean): string {
  if (!tty) return `progress ${Math.round(percent)}% status=${status}\n`;
  const width = 30;
  const filled = Math.round((Math.min(100, Math.max(0, percent)) / 100) * width);
  return `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.round(percent)).padStart(3)}% ${status.padEnd(10)}`;
}

export async function scanCommand(args: string[]): Promise<number> {
  const { values: v, positionals } = parse(args);
  if (v.help) {
    process.stdout.write(`${SCAN_HELP}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('vigil scan takes exactly one target URL (see vigil scan --help)');
  const target = positionals[0]!;
  try {
    new URL(target);
  } catch {
    throw new UsageError(`"${target}" is not a valid URL`);
  }
  const body = startBody(target, v);
  const format = v.output ? formatFor(v.output, v.format) : v.format ? (() => { throw new UsageError('--format needs --output'); })() : undefined;
  const channels = parseChannels(v.notify, v['notify-header'], v['notify-secret']);
  const pollMs = v['poll-interval'] !== undefined ? Number(v['poll-interval']) * 1000 : 5000;
  if (!Number.isFinite(pollMs) || pollMs <= 0) throw new UsageError('--poll-interval must be a positive number of seconds');
  const notifyTimeout = v['notify-timeout'] !== undefined ? Number(v['notify-timeout']) * 1000 : 10_000;
  if (!Number.isFinite(notifyTimeout) || notifyTimeout <= 0) throw new UsageError('--notify-timeout must be a positive number of seconds');
  let specFile: string | undefined;
  if (v.spec !== undefined) {
    if (/^https?:\/\//i.test(v.spec)) body.spec_url = v.spec;
    else if (existsSync(v.spec)) specFile = v.spec;
    else throw new UsageError(`--spec: "${v.spec}" is neither an http(s) URL nor a readable file`);
  }
  const client = clientFrom(v);
  const json = Boolean(v.json);
  const tty = Boolean(process.stderr.isTTY) && !json;
  const log = (s: string) => process.stderr.write(s);

  let started: any;
  try {
    // A 429 RATE_LIMIT_EXCEEDED means the start was not accepted: wait Retry-After and try again (bounded).
    for (let tries = 0; ; tries += 1) {
      try {
        started = await startScan();
        break;
      } catch (error) {
        if (error instanceof ApiFailure && error.status === 429 && error.code !== 'CONCURRENT_LIMIT' && tries < 5) {
          log(`rate limited; retrying in ${Math.max(1, error.retryAfter ?? 5)} s\n`);
          await sleep(Math.max(1, error.retryAfter ?? 5) * 1000);
          continue;
        }
        throw error;
      }
    }
  } catch (error) {
    if (error instanceof ApiFailure) {
      if (json) printJson({ error: error.code, message: error.message, status: error.status });
      log(`error ${error.code}: ${error.message}\n`);
      return exitCodeFor(error);
    }
    throw error;
  }
  async function startScan(): Promise<any> {
    if (specFile) {
      const form = new FormData();
      form.set('base_url', target);
      if (body.mode) form.set('mode', String(body.mode));
      if (body.auth) form.set('auth', JSON.stringify(body.auth));
      if (body.options) form.set('options', JSON.stringify(body.options));
      if (body.reset_baseline) form.set('reset_baseline', 'true');
      form.set('spec_file', new Blob([readFileSync(specFile)]), basename(specFile));
      return (await client.request('POST', '/scan/upload', { form })).body;
    }
    return (await client.request('POST', '/scan', { json: body })).body;
  }
  const scanId: string = started.scan_id;
  log(`scan ${scanId} ${started.status} (${body.mode ?? 'security'} scan of ${target})\n`);
  if (v['no-wait']) {
    if (json) printJson(started);
    else process.stdout.write(`${scanId}\n`);
    return 0;
  }

  let results: any;
  let lastPercent = -1;
  let lastStatus = '';
  try {
    for (;;) {
      results = (await getPatiently(client, `/scan/${encodeURIComponent(scanId)}/results`)).body;
      const percent = Number(results.progress_percent ?? (results.status === 'completed' ? 100 : 0));
      if (tty || percent !== lastPercent || results.status !== lastStatus) log(progressLine(results.status, percent, tty));
      lastPercent = percent;
      lastStatus = results.status;
      if (['completed', 'failed', 'cancelled'].includes(results.status)) break;
      await sleep(pollMs);
    }
    if (tty) log('\n');
  } catch (error) {
    if (tty) log('\n');
    if (error instanceof ApiFailure) {
      log(`error ${error.code}: ${error.message}\n`);
      return error.status === 401 || error.status === 403 ? 4 : 2;
    }
    throw error;
  }

  // What makes the verdicts doubtful ("0 of 29 operations answered 2xx: is the base URL right?").
  const warnings: string[] = Array.isArray(results.warnings) ? results.warnings.filter((w: unknown): w is string => typeof w === 'string') : [];
  for (const warning of warnings) log(`warning: ${warning}\n`);

  const failOn: Severity | null = results.fail_on ?? (body.options as any)?.fail_on ?? null;
  const failedTasks = (results.tasks ?? []).filter((t: any) => t.status === 'failed');
  const reached: boolean = results.threshold_reached ?? thresholdReached(failedTasks, failOn);
  const exit = results.status !== 'completed' ? 2 : reached ? 1 : 0;

  let written: string | null = null;
  if (v.output && format) {
    try {
      let content: string;
      if (format === 'sarif') content = `${JSON.stringify(toSarif(results), null, 2)}\n`;
      else if (format === 'junit') content = toJunit(results);
      else content = (await getPatiently(client, `/scan/${encodeURIComponent(scanId)}/export`, { format })).text;
      writeFileSync(v.output, content);
      written = v.output;
    } catch (error) {
      log(`error ${error instanceof ApiFailure ? error.code : 'OUTPUT_FAILED'}: could not write ${v.output}: ${(error as Error).message}\n`);
    }
  }

  let deliveries: Awaited<ReturnType<typeof sendAll>> = [];
  if (channels.length) {
    const appUrl = (process.env.VIGIL_APP_URL ?? 'https://app.vigil.dev');
    deliveries = await sendAll(channels, scanEvents({ ...results, spec_url: body.spec_url as string | undefined ?? (specFile ? basename(specFile) : null) }, { appUrl, thresholdReached: reached }), { timeoutMs: notifyTimeout, attempts: 3, backoffMs: 500 });
    for (const d of deliveries) if (!d.ok) log(`warning: notification ${d.event} to ${d.channel} failed after ${d.attempts} attempt(s): ${d.error}\n`);
  }

  if (json) {
    printJson({ scan_id: scanId, status: results.status, exit_code: exit, threshold_reached: reached, fail_on: failOn, severity_counts: results.severity_counts, passed: results.passed, failed: results.failed, total: results.total, elapsed_seconds: results.elapsed_seconds, failure_reason: results.failure_reason ?? null, warnings, output: written, notifications: deliveries, results });
  } else {
    const counts = results.severity_counts ?? {};
    const rows = [['scan', scanId], ['status', results.status], ['tasks', `${results.passed ?? 0} passed, ${results.failed ?? 0} failed, ${results.total ?? 0} total`], ['findings', ['critical', 'high', 'medium', 'low', 'info'].map((s) => `${s} ${counts[s] ?? 0}`).join(', ')], ['fail on', failOn ?? '-'], ['duration', `${results.elapsed_seconds ?? 0} s`]];
    if (results.failure_reason) rows.push(['reason', String(results.failure_reason)]);
    if (warnings.length) rows.push(['warnings', `${warnings.length} (see above)`]);
    if (written) rows.push(['report', written]);
    process.stdout.write(`${table(rows)}\n`);
    if (failedTasks.length) {
      const list = [['severity', 'finding', 'endpoint'], ...failedTasks.slice(0, 50).map((t: any) => [t.severity ?? '-', String(t.name).slice(0, 80), t.endpoint ?? ''])];
      process.stdout.write(`\n${table(list)}\n${failedTasks.length > 50 ? `...and ${failedTasks.length - 50} more\n` : ''}`);
    }
    process.stdout.write(`\n${exit === 0 ? 'PASSED' : exit === 1 ? `FAILED: findings at or above ${failOn}` : `SCAN ${String(results.status).toUpperCase()}`}\n`);
  }
  return exit;
}
