/**
 * `vigil scan [url]`: start a scan, follow it, judge it with the CI gate, print a summary, write
 * reports, notify, exit 0/1/2/3/4/5. `vigil scans wait <id>` follows and judges a scan started earlier.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import type { RequestBody, ResponseBody } from '../../api-client/calls.js';
import { ApiFailure, exitCodeFor, notVigil, type VigilClient } from '../client.js';
import { CONNECTION_HELP, CONNECTION_OPTIONS, clientFrom, printApiError, printJson } from '../common.js';
import { loadProjectConfig, type ProjectConfig } from '../config-file.js';
import { acceptingBudgets, checkBudget, parseBudgetFlag, type Budget } from '../budgets.js';
import { followScan, getPatiently, startPatiently, type Patience, type ScanResults } from '../follow.js';
import { baselineKeys, FAIL_ON, FAIL_ON_A11Y, judge, type FailOn, type FailOnA11y, type GateResult } from '../gate.js';
import { toJunit } from '../../reports/junit.js';
import { toSarif } from '../../reports/sarif.js';
import { colorEnabled, failureSummary, painter, renderGate, renderNotTested, table } from '../render.js';
import { checkSuppressions, loadSuppressionFile, type Suppression } from '../suppressions.js';
import { ciMetadata } from '../ci-env.js';
import { ciSummary } from '../../domain/ci.js';
import { parseCommandArgs, UsageError } from '../usage-error.js';
import { cliVersion } from '../version.js';
import { scanEvents, sendAll, type Channel } from '../../notifications/index.js';

/** Levels the server knows for options.fail_on (info and none are the CLI's own). */
const SERVER_FAIL_ON = ['critical', 'high', 'medium', 'low'] as const;
const isServerFailOn = (level: string): level is (typeof SERVER_FAIL_ON)[number] => (SERVER_FAIL_ON as readonly string[]).includes(level);
export const REPORT_FORMATS = ['html', 'json', 'csv', 'sarif', 'junit'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** Exit codes of vigil scan and vigil scans wait (docs/cli.md). */
export const SCAN_EXIT = { passed: 0, gate: 1, scanFailed: 2, usage: 3, refused: 4, output: 5 } as const;

const GATE_HELP = `Gate (what fails the build; exit 1):
  --fail-on <critical|high|medium|low|info|none>   Security findings at or above (default high; none: never)
  --fail-on-a11y <minor|moderate|serious|critical|none>  Accessibility violations at or above (default serious)
  --fail-on-visual <on|off>           A visual diff above its threshold (default on)
  --fail-on-coverage <percent>        Security: fail when fewer than <percent>% of the operations answered 2xx (default off)
  --budget '<[page@]metric<op>value[:warn]>'  Repeatable; quote it (> < * are shell characters):
                                      --budget lcp=2500 --budget 'performance>=90:warn' --budget '/cart*@tbt<=300'
                                      metrics fcp lcp tbt cls si ttfb tti fid (upper limits), scores performance
                                      accessibility (lower limits); level error (default, fails) or warn
  --ignore-file <file>                Suppressions (default .vigil/ignore.yml): reason required, optional until
  --new-only                          Fail only on findings not in the previous completed scan of the same target
  --baseline <scan_id|results.json>   Fail only on findings not in that scan (or saved results / --json output)
  A page that could not be loaded always fails the gate; a scan that did not complete is exit 2.`;

const FOLLOW_HELP = `Following:
  --poll-interval <seconds>           Default 5
  --reconnect-timeout <seconds>       Keep retrying a lost server this long (backoff 1 s to 30 s; default 300)
  --no-color                          No colours (also NO_COLOR; colours only on a terminal or with FORCE_COLOR)`;

const OUTPUT_HELP = `Output:
  --output <file>                     Repeatable; format from the extension (.html .json .csv .sarif .xml/.junit)
  --format <html|json|csv|sarif|junit>  Override the format (with a single --output)
  --notify <slack|teams|webhook>=<url>  Repeatable; sent by the CLI when the scan ends
  --notify-header <Name: value>       Header for webhook channels (repeatable)
  --notify-secret <secret>            HMAC key for X-Vigil-Signature on webhook channels
  --notify-timeout <seconds>          Default 10`;

const CONFIG_HELP = `Config:
  --config <file>                     Project config (default vigil.config.json / vigil.config.yaml in the cwd);
                                      flags override it; "vigil init" writes one
  --profile <name>                    A named option set of the config file's "profiles"`;

export const SCAN_HELP = `Usage: vigil scan [url] [options]

Starts a scan (the URL, or "target" in the config file), follows it until it finishes, judges it and exits with:
  0 passed   1 the gate failed (see Gate)   2 scan failed or cancelled, or the server was lost
  3 usage or configuration error   4 refused by the server (401/402/403, or still limited after waiting)
  5 a report (--output) could not be written

Scan:
  --mode <security|functional|full>   Default security
  --spec <url|file>                   OpenAPI/Swagger spec: a URL, or a local file (uploaded)
  --auth-type <bearer|header|basic|oauth2|login|none>   First identity (inferred from the flags below when absent)
  --token <t>  --header-name <n> --header-value <v>  --username <u> --password <p>
  --oauth2-token-url <url> --oauth2-client-id <id> --oauth2-client-secret <s> --oauth2-scope <scope>
  --oauth2-grant-type <client_credentials|password>  password: with --username/--password (refresh tokens used)
  An identity that logs in (login): --username <u> --password <p> and
    --login-url <url|/path> [--login-method POST] | --login-operation <operationId|"METHOD /path">
    --login-format <json|form>  --login-username-field <f> (e.g. email)  --login-password-field <f>
    --login-token-pointer </json/pointer> | --login-token-header <h> | --login-token-cookie <name>
    --login-send-header <h> (default Authorization)  --login-send-scheme <s> (default Bearer; e.g. Token, JWT)
    --login-csrf-url <url|/path>  --login-csrf-cookie <name> | --login-csrf-pointer </ptr>  --login-csrf-header <h>
  --auth2-type <bearer|header|basic|oauth2|login>  Second identity (another ordinary user), for BOLA/BFLA checks;
  --auth2-token <t>  --auth2-header-name <n> --auth2-header-value <v>  --auth2-username <u> --auth2-password <p>
  --auth2-oauth2-token-url <url> --auth2-oauth2-client-id <id> --auth2-oauth2-client-secret <s> --auth2-oauth2-scope <scope>
  --auth2-oauth2-grant-type <g>  --auth2-login-url ... (every --login-* flag, prefixed auth2-)
  --safe-mode                         Security: skip destructive or global operations (reset, seed, purge, DELETE on a collection)
  --concurrency <n>  --timeout <seconds>
  --exclude <pattern>                 Repeatable
  --reset-baseline                    Functional: replace the visual baseline
  --pages <url,...>  --max-pages <n>  --diff-threshold <percent>  --viewport <WxH>
  --mask <selector>  (repeatable)  --device <desktop|mobile>  --a11y-profile <wcag21aa|wcag22aa|section508>
  --throttling <simulate|devtools|none>  Functional: how performance is throttled (default simulate, as Lighthouse)
  --branch <name>  --commit <sha>  --pr <number>   What the run scans (CI metadata: results, reports and the
                                      dashboard group scans by branch); read from GitHub Actions and GitLab CI when
                                      absent (docs/ci.md); flags win over the environment
  --no-ci                             Do not read CI metadata from the environment
  --queue-wait <seconds>              Wait this long for a free slot (CONCURRENT_LIMIT) or the rate limit (default 600)
  --no-wait                           Print the scan id and exit 0 without following it (see vigil scans wait)
${GATE_HELP}
${FOLLOW_HELP}
${OUTPUT_HELP}
${CONFIG_HELP}
${CONNECTION_HELP}

Examples:
  vigil scan https://api.example.com --spec openapi.yaml --output vigil.sarif --output junit.xml --output report.html
  vigil scan https://shop.example.com --mode functional --pages /,/cart --budget lcp=2500 --budget 'performance>=90:warn'
  vigil scan --profile nightly                      # everything from vigil.config.yaml
  vigil scan https://api.example.com --spec openapi.yaml --new-only --fail-on medium
  VIGIL_API_KEY=svc_pk_... vigil scan https://api.example.com --spec https://api.example.com/openapi.json --json`;

export const WAIT_HELP = `Usage: vigil scans wait <scan_id> [options]

Follows a scan started earlier (vigil scan --no-wait, the dashboard, the API) until it ends, then judges,
reports and exits exactly like vigil scan (0 passed, 1 gate, 2 failed/cancelled, 3 usage, 4 refused, 5 output).
  --spec <file>                       The local OpenAPI file the scan used: SARIF results point at its lines
${GATE_HELP}
${FOLLOW_HELP}
${OUTPUT_HELP}
${CONFIG_HELP}
${CONNECTION_HELP}

Examples:
  id=$(vigil scan https://api.example.com --spec openapi.yaml --no-wait)
  vigil scans wait "$id" --output vigil.sarif`;

const GATE_OPTIONS = {
  'fail-on': { type: 'string' },
  'fail-on-a11y': { type: 'string' },
  'fail-on-visual': { type: 'string' },
  'fail-on-coverage': { type: 'string' },
  budget: { type: 'string', multiple: true },
  'ignore-file': { type: 'string' },
  'new-only': { type: 'boolean' },
  baseline: { type: 'string' },
  'poll-interval': { type: 'string' },
  'reconnect-timeout': { type: 'string' },
  'no-color': { type: 'boolean' },
  output: { type: 'string', short: 'o', multiple: true },
  format: { type: 'string' },
  notify: { type: 'string', multiple: true },
  'notify-header': { type: 'string', multiple: true },
  'notify-secret': { type: 'string' },
  'notify-timeout': { type: 'string' },
  config: { type: 'string' },
  profile: { type: 'string' },
} as const;

/** The settings of an identity that logs in (auth.login) and their flags: `--login-<name>` (`--auth2-login-<name>`). */
const LOGIN_FIELDS = [
  'url',
  'method',
  'operation',
  'format',
  'username_field',
  'password_field',
  'token_pointer',
  'token_header',
  'token_cookie',
  'send_header',
  'send_scheme',
  'csrf_url',
  'csrf_cookie',
  'csrf_pointer',
  'csrf_header',
] as const;
const loginFlag = (field: (typeof LOGIN_FIELDS)[number]) => `login-${field.replace(/_/g, '-')}`;

function loginOptions(prefix: '' | 'auth2-'): Record<string, { type: 'string' }> {
  return Object.fromEntries(LOGIN_FIELDS.map((f) => [`${prefix}${loginFlag(f)}`, { type: 'string' as const }]));
}

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  ...GATE_OPTIONS,
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
  'oauth2-grant-type': { type: 'string' },
  ...loginOptions(''),
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
  'auth2-oauth2-grant-type': { type: 'string' },
  ...loginOptions('auth2-'),
  'safe-mode': { type: 'boolean' },
  concurrency: { type: 'string' },
  timeout: { type: 'string' },
  exclude: { type: 'string', multiple: true },
  'reset-baseline': { type: 'boolean' },
  pages: { type: 'string', multiple: true },
  'max-pages': { type: 'string' },
  'diff-threshold': { type: 'string' },
  viewport: { type: 'string' },
  mask: { type: 'string', multiple: true },
  device: { type: 'string' },
  throttling: { type: 'string' },
  'a11y-profile': { type: 'string' },
  'queue-wait': { type: 'string' },
  'no-wait': { type: 'boolean' },
  branch: { type: 'string' },
  commit: { type: 'string' },
  pr: { type: 'string' },
  'no-ci': { type: 'boolean' },
} as const;

/** Flag values after the config file was merged in (flag name -> value). */
type Values = Record<string, string | boolean | string[] | undefined>;
const str = (v: Values, k: string): string | undefined => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
const list = (v: Values, k: string): string[] | undefined => (Array.isArray(v[k]) ? (v[k] as string[]) : undefined);

function int(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer >= ${min}`);
  return n;
}

function seconds(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback * 1000;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a positive number of seconds`);
  return n * 1000;
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

export function formatFor(output: string, format?: string): ReportFormat {
  if (format) return oneOf('format', format === 'xml' ? 'junit' : format, REPORT_FORMATS)!;
  const ext = extname(output).slice(1).toLowerCase();
  const byExt: Record<string, ReportFormat> = { html: 'html', htm: 'html', json: 'json', csv: 'csv', sarif: 'sarif', xml: 'junit', junit: 'junit' };
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
    checkHttpUrl(`--notify ${kind}`, url);
    return kind === 'webhook' ? { kind, url, headers: hdrs, ...(secret ? { secret } : {}) } : { kind: kind as 'slack' | 'teams', url };
  });
}

function checkHttpUrl(where: string, url: string): void {
  try {
    const u = new URL(url);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error();
  } catch {
    throw new UsageError(`${where}: "${url}" is not an http(s) URL`);
  }
}

/** Request field of each identity flag; the second identity's flags carry the prefix `auth2-`. */
const AUTH_FIELDS = [
  ['token', 'token'],
  ['header-name', 'header_name'],
  ['header-value', 'header_value'],
  ['username', 'username'],
  ['password', 'password'],
  ['oauth2-token-url', 'oauth2_token_url'],
  ['oauth2-grant-type', 'oauth2_grant_type'],
  ['oauth2-client-id', 'oauth2_client_id'],
  ['oauth2-client-secret', 'oauth2_client_secret'],
  ['oauth2-scope', 'oauth2_scope'],
] as const;
const AUTH_TYPES = ['bearer', 'header', 'basic', 'oauth2', 'login', 'none'] as const;

/** One identity from its flags (`--token`... or `--auth2-token`...), the type inferred when not given; undefined when none is set. */
function identity(v: Values, prefix: '' | 'auth2-'): Omit<Identity, 'secondary'> | undefined {
  const typeFlag = prefix ? 'auth2-type' : 'auth-type';
  const type = oneOf(typeFlag, str(v, typeFlag), prefix ? AUTH_TYPES.filter((t) => t !== 'none') : AUTH_TYPES);
  const fields: Record<string, unknown> = {};
  for (const [flag, field] of AUTH_FIELDS) {
    const value = str(v, `${prefix}${flag}`);
    if (value !== undefined) fields[field] = value;
  }
  const login: Record<string, string> = {};
  for (const field of LOGIN_FIELDS) {
    const value = str(v, `${prefix}${loginFlag(field)}`);
    if (value !== undefined) login[field] = field === 'method' ? value.toUpperCase() : value;
  }
  if (Object.keys(login).length) fields.login = login;
  if (!type && Object.keys(fields).length === 0) return undefined;
  const inferred =
    type ??
    (fields.token
      ? 'bearer'
      : fields.header_name
        ? 'header'
        : fields.login
          ? 'login'
          : fields.oauth2_token_url
            ? 'oauth2'
            : fields.username
              ? 'basic'
              : undefined);
  if (!inferred) throw new UsageError(`--${typeFlag} is required with these ${prefix ? 'second-identity ' : ''}auth flags`);
  return { type: inferred, ...fields };
}

/** The POST /scan body, as the API describes it. */
export type StartScanRequest = RequestBody<'post', '/scan'>;
type Identity = NonNullable<StartScanRequest['auth']>;
/** The budgets flags and config give are checked against BUDGET_NAMES, the ones the server takes. */
type ServerBudgets = NonNullable<NonNullable<StartScanRequest['options']>['budgets']>;

/** The POST /scan body from the flags (spec file content is handled by the caller). */
export function startBody(url: string, v: Values, failOn?: FailOn): StartScanRequest {
  const body: StartScanRequest = { url };
  const mode = oneOf('mode', str(v, 'mode'), ['security', 'functional', 'full'] as const);
  if (mode) body.mode = mode;
  const primary = identity(v, '');
  const secondary = identity(v, 'auth2-');
  if (secondary && (!primary || primary.type === 'none'))
    throw new UsageError('--auth2-* flags describe a second identity: give the first one too (--auth-type, --token, ...)');
  if (primary) body.auth = secondary ? { ...primary, secondary } : primary;
  const options: NonNullable<StartScanRequest['options']> = {};
  const concurrency = int('concurrency', str(v, 'concurrency'), 1);
  if (concurrency !== undefined) options.concurrency = concurrency;
  const timeout = int('timeout', str(v, 'timeout'), 1);
  if (timeout !== undefined) options.timeout = timeout;
  // The server records the threshold too (threshold_reached, notifications, dashboard) when it knows the level.
  if (failOn && isServerFailOn(failOn)) options.fail_on = failOn;
  if (list(v, 'exclude')?.length) options.exclude = list(v, 'exclude');
  if (v['safe-mode']) options.safe_mode = true;
  const pages = list(v, 'pages');
  if (pages?.length)
    options.pages = pages
      .flatMap((p) => p.split(','))
      .map((p) => p.trim())
      .filter(Boolean);
  const maxPages = int('max-pages', str(v, 'max-pages'), 1);
  if (maxPages !== undefined) options.max_pages = maxPages;
  if (str(v, 'diff-threshold') !== undefined) {
    const d = Number(str(v, 'diff-threshold'));
    if (!Number.isFinite(d) || d < 0 || d > 100) throw new UsageError('--diff-threshold must be a percentage between 0 and 100');
    options.diff_threshold_percent = d;
  }
  const viewport = str(v, 'viewport');
  if (viewport !== undefined) {
    const m = /^(\d+)x(\d+)$/i.exec(viewport);
    if (!m) throw new UsageError('--viewport must be WIDTHxHEIGHT, e.g. 1280x720');
    options.viewport = { width: Number(m[1]), height: Number(m[2]) };
  }
  if (list(v, 'mask')?.length) options.mask = list(v, 'mask');
  const device = oneOf('device', str(v, 'device'), ['desktop', 'mobile'] as const);
  if (device) options.device = device;
  const throttling = oneOf('throttling', str(v, 'throttling'), ['simulate', 'devtools', 'none'] as const);
  if (throttling) options.throttling = throttling;
  const profile = oneOf('a11y-profile', str(v, 'a11y-profile'), ['wcag21aa', 'wcag22aa', 'section508'] as const);
  if (profile) options.accessibility_profile = profile;
  if (Object.keys(options).length) body.options = options;
  if (v['reset-baseline']) body.reset_baseline = true;
  return body;
}

/** The config file's keys as flag values (what a flag on the command line then overrides). */
export function configValues(cfg: ProjectConfig): Values {
  const v: Values = {};
  const set = (flag: string, value: unknown) => {
    if (value === undefined || value === null) return;
    v[flag] = Array.isArray(value) ? value.map(String) : typeof value === 'boolean' ? value : String(value);
  };
  set('mode', cfg.mode);
  set('spec', cfg.spec);
  for (const [key, prefix] of [
    ['auth', ''],
    ['auth2', 'auth2-'],
  ] as const) {
    const id = cfg[key];
    if (!id) continue;
    set(prefix ? 'auth2-type' : 'auth-type', id.type);
    for (const [flag, field] of AUTH_FIELDS) set(`${prefix}${flag}`, id[field]);
    for (const field of LOGIN_FIELDS) set(`${prefix}${loginFlag(field)}`, id.login?.[field]);
  }
  set('safe-mode', cfg.safe_mode);
  set('concurrency', cfg.concurrency);
  set('timeout', cfg.timeout);
  set('pages', cfg.pages);
  set('max-pages', cfg.max_pages);
  set('exclude', cfg.excludes);
  set('mask', cfg.masks);
  set('viewport', cfg.viewport);
  set('device', cfg.device);
  set('throttling', cfg.throttling);
  set('a11y-profile', cfg.a11y_profile);
  set('fail-on', cfg.thresholds?.fail_on);
  set('fail-on-a11y', cfg.thresholds?.fail_on_a11y);
  if (typeof cfg.thresholds?.fail_on_visual === 'boolean') set('fail-on-visual', cfg.thresholds.fail_on_visual ? 'on' : 'off');
  set('diff-threshold', cfg.thresholds?.diff_percent);
  set('output', cfg.outputs);
  set('new-only', cfg.new_only);
  set('baseline', cfg.baseline);
  set('poll-interval', cfg.poll_interval);
  if (cfg.read_ci_env === false) set('no-ci', true);
  return v;
}

const IDENTITY_FLAGS = (prefix: '' | 'auth2-') => [
  prefix ? 'auth2-type' : 'auth-type',
  ...AUTH_FIELDS.map(([f]) => `${prefix}${f}`),
  ...LOGIN_FIELDS.map((f) => `${prefix}${loginFlag(f)}`),
];

/** Flags over the file; an identity given by flags replaces the file's identity whole (no mixing). */
export function mergeValues(file: Values, flags: Values): Values {
  const merged: Values = { ...file };
  for (const prefix of ['', 'auth2-'] as const) {
    const keys = IDENTITY_FLAGS(prefix);
    if (keys.some((k) => flags[k] !== undefined)) for (const k of keys) delete merged[k];
  }
  for (const [k, val] of Object.entries(flags)) if (val !== undefined) merged[k] = val;
  return merged;
}

/** Everything `vigil scan` and `vigil scans wait` share once the scan has an id: follow, judge, report, exit. */
interface RunSettings {
  client: VigilClient;
  json: boolean;
  color: boolean;
  pollMs: number;
  patience: Patience;
  failOn: FailOn;
  failOnA11y: FailOnA11y;
  failOnVisual: boolean;
  /** --fail-on-coverage: least share (percent) of operations that answered 2xx, else the gate fails. */
  failOnCoverage?: number;
  budgets: Budget[];
  suppressions: Suppression[];
  baseline: { kind: 'new-only' } | { kind: 'scan'; id: string } | { kind: 'file'; path: string } | null;
  outputs: Array<{ path: string; format: ReportFormat }>;
  channels: Channel[];
  notifyTimeoutMs: number;
  specFile?: string;
  specLabel?: string | null;
  target?: string;
}

function gateSettings(
  v: Values,
  cfg: ProjectConfig,
  cwd: string,
): Pick<RunSettings, 'failOn' | 'failOnA11y' | 'failOnVisual' | 'failOnCoverage' | 'budgets' | 'suppressions' | 'baseline'> {
  const coverageFlag = str(v, 'fail-on-coverage');
  const failOnCoverage = coverageFlag === undefined ? undefined : Number(coverageFlag.replace(/%$/, ''));
  if (failOnCoverage !== undefined && !(Number.isFinite(failOnCoverage) && failOnCoverage >= 0 && failOnCoverage <= 100))
    throw new UsageError('--fail-on-coverage must be a percentage from 0 to 100');
  const failOn = oneOf('fail-on', str(v, 'fail-on'), FAIL_ON) ?? 'high';
  const failOnA11y = oneOf('fail-on-a11y', str(v, 'fail-on-a11y'), FAIL_ON_A11Y) ?? 'serious';
  const failOnVisual = (oneOf('fail-on-visual', str(v, 'fail-on-visual'), ['on', 'off'] as const) ?? 'on') === 'on';
  const fileBudgets: Budget[] = (Array.isArray(cfg.budgets) ? cfg.budgets : []).map((b: any, i: number) =>
    checkBudget({ ...b, level: b.level ?? 'error' }, `budgets.${i}`),
  );
  const flagBudgets = (list(v, 'budget') ?? []).map(parseBudgetFlag);
  // A flag replaces the file's budget for the same metric and page.
  const budgets = [...fileBudgets.filter((b) => !flagBudgets.some((f) => f.metric === b.metric && (f.page ?? '') === (b.page ?? ''))), ...flagBudgets];
  const suppressions = [...checkSuppressions(cfg.suppressions ?? [], 'config suppressions'), ...loadSuppressionFile(cwd, str(v, 'ignore-file'))];
  const base = str(v, 'baseline');
  if (base && v['new-only']) throw new UsageError('--new-only and --baseline both name a baseline: give one');
  const baseline: RunSettings['baseline'] = base
    ? existsSync(base) || /\.json$/i.test(base)
      ? { kind: 'file', path: base }
      : { kind: 'scan', id: base }
    : v['new-only']
      ? { kind: 'new-only' }
      : null;
  if (baseline?.kind === 'file' && !existsSync(baseline.path)) throw new UsageError(`--baseline: "${baseline.path}" does not exist`);
  return { failOn, failOnA11y, failOnVisual, failOnCoverage, budgets, suppressions, baseline };
}

function outputSettings(v: Values): RunSettings['outputs'] {
  const outputs = list(v, 'output') ?? [];
  const format = str(v, 'format');
  if (format && outputs.length !== 1)
    throw new UsageError(outputs.length ? '--format applies to a single --output: with several, name each file with its extension' : '--format needs --output');
  const seen = new Set<string>();
  return outputs.map((path) => {
    if (seen.has(resolve(path))) throw new UsageError(`--output "${path}" is given twice`);
    seen.add(resolve(path));
    return { path, format: formatFor(path, format) };
  });
}

function notifySettings(v: Values, cfg: ProjectConfig): { channels: Channel[]; notifyTimeoutMs: number } {
  let channels = parseChannels(list(v, 'notify'), list(v, 'notify-header'), str(v, 'notify-secret'));
  if (!channels.length && Array.isArray(cfg.notifications)) {
    channels = cfg.notifications.map((n: any, i: number) => {
      checkHttpUrl(`notifications.${i}.url`, n.url);
      return n.kind === 'webhook'
        ? { kind: 'webhook' as const, url: n.url, headers: n.headers ?? {}, ...(n.secret ? { secret: n.secret } : {}) }
        : { kind: n.kind, url: n.url };
    });
  }
  return { channels, notifyTimeoutMs: seconds('notify-timeout', str(v, 'notify-timeout'), 10) };
}

/** The file's path from the repository root (where SARIF's %SRCROOT% points), else from the cwd. */
function repoPath(file: string): string {
  const abs = resolve(file);
  let dir = dirname(abs);
  for (let i = 0; i < 30; i += 1) {
    if (existsSync(join(dir, '.git'))) return relative(dir, abs).split('\\').join('/');
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return relative(process.cwd(), abs).split('\\').join('/');
}

/** The keys of the baseline's findings, and a label for it; null when there is no baseline to compare with. */
async function loadBaseline(s: RunSettings, results: ScanResults): Promise<{ keys: Set<string>; label: string } | null> {
  const b = s.baseline;
  if (!b) return null;
  if (b.kind === 'file') {
    let parsed: any;
    try {
      parsed = JSON.parse(readFileSync(b.path, 'utf8'));
    } catch (error) {
      throw new UsageError(`--baseline ${b.path}: ${(error as Error).message}`);
    }
    const body = parsed?.results && typeof parsed.results === 'object' ? parsed.results : parsed;
    if (!Array.isArray(body?.tasks))
      throw new UsageError(`--baseline ${b.path}: not scan results (no "tasks"); save GET /scan/{id}/results, vigil scan --json or a .json export`);
    return { keys: baselineKeys(body), label: basename(b.path) };
  }
  let id: string;
  if (b.kind === 'scan') id = b.id;
  else {
    const target = s.target ?? results.url;
    const { body } = await getPatiently(s.client, '/scans', s.patience, { query: { status: 'completed', per_page: '100' } });
    const prev = (body?.scans ?? []).find(
      (x) =>
        x.scan_id !== results.scan_id &&
        x.url === target &&
        (!results.created_at || !x.created_at || x.created_at <= results.created_at) &&
        (!results.mode || !x.mode || x.mode === results.mode),
    );
    if (!prev) {
      process.stderr.write(`note: no earlier completed scan of ${target}: every finding counts as new\n`);
      return { keys: new Set(), label: '(none: first scan)' };
    }
    id = prev.scan_id;
  }
  const { body } = await getPatiently(s.client, '/scan/{id}/results', s.patience, { path: { id } });
  if (body?.status !== 'completed') throw new UsageError(`--baseline ${id}: the scan is ${body?.status}, not completed`);
  return { keys: baselineKeys(body), label: id };
}

async function accessibilityScores(s: RunSettings, results: ScanResults): Promise<Map<string, number> | undefined> {
  if (!s.budgets.some((b) => b.metric === 'accessibility')) return undefined;
  try {
    const { body } = await s.client.call('get', '/scan/{id}/accessibility', { path: { id: results.scan_id } });
    return new Map((body?.pages ?? []).filter((p) => typeof p.compliance_score === 'number').map((p) => [String(p.page_url), p.compliance_score as number]));
  } catch {
    return undefined; // the scan's score is used for every page
  }
}

/** The JSON report with `tasks[].suppressed` (source file) on the findings only the ignore file covers. */
function withFileSuppressions(json: string, suppressed: ReadonlyArray<{ key: string; reason: string; until?: string; source: 'server' | 'file' }>): string {
  const byKey = new Map(suppressed.filter((x) => x.source === 'file').map((x) => [x.key, x]));
  if (byKey.size === 0) return json;
  const body = JSON.parse(json) as { tasks?: Array<Record<string, unknown>> };
  for (const task of body.tasks ?? []) {
    const hit = typeof task.fingerprint === 'string' && !task.suppressed ? byKey.get(task.fingerprint) : undefined;
    if (hit) task.suppressed = { reason: hit.reason, author: null, expires_at: hit.until ?? null, source: 'file' };
  }
  return `${JSON.stringify(body, null, 2)}\n`;
}

async function writeOutputs(
  s: RunSettings,
  results: ScanResults,
  gate: GateResult,
): Promise<{ written: string[]; failed: Array<{ path: string; error: string }> }> {
  const written: string[] = [];
  const failed: Array<{ path: string; error: string }> = [];
  let specFile: { path: string; text: string } | undefined;
  if (s.specFile) {
    try {
      specFile = { path: repoPath(s.specFile), text: readFileSync(s.specFile, 'utf8') };
    } catch {
      specFile = undefined;
    }
  }
  const suppressed = gate.suppressed.map(({ item, suppression }) => ({
    key: item.key,
    reason: suppression.reason,
    ...(suppression.until ? { until: suppression.until } : {}),
    ...(suppression.author ? { author: suppression.author } : {}),
    source: suppression.origin ?? ('file' as const),
  }));
  for (const out of s.outputs) {
    if (out.format === 'sarif' && results.status !== 'completed') {
      // Code scanning reads a SARIF without results as "no findings" and closes every open alert of the
      // tool on the ref: a scan that did not complete writes none (and removes one left from an earlier run).
      rmSync(out.path, { force: true });
      process.stderr.write(`note: no SARIF written to ${out.path}: the scan ${results.status}; an empty SARIF would close the open alerts in code scanning\n`);
      continue;
    }
    try {
      let content: string;
      if (out.format === 'sarif') {
        // Suppressed findings stay in the SARIF, marked as accepted (code scanning shows them dismissed).
        content = `${JSON.stringify(toSarif(results, cliVersion(), { ...(specFile ? { specFile } : {}), suppressed }), null, 2)}\n`;
      } else if (out.format === 'junit')
        content = toJunit(results, {
          suppressed,
          gate: { failing: gate.failing, below: gate.below, threshold: `--fail-on ${s.failOn}, --fail-on-a11y ${s.failOnA11y}` },
        });
      else content = (await getPatiently(s.client, '/scan/{id}/export', s.patience, { path: { id: results.scan_id }, query: { format: out.format } })).text;
      // The server marks what its suppressions cover; the JSON report also shows what the ignore file covers.
      if (out.format === 'json') content = withFileSuppressions(content, suppressed);
      writeFileSync(out.path, content);
      written.push(out.path);
    } catch (error) {
      const message = error instanceof ApiFailure ? `${error.code}: ${error.message}` : (error as Error).message;
      failed.push({ path: out.path, error: message });
      process.stderr.write(`error OUTPUT_FAILED: could not write ${out.path}: ${message}\n`);
    }
  }
  return { written, failed };
}

/** Follows `scanId` to its end, judges it, writes the reports, notifies and prints; returns the exit code. */
async function followAndJudge(s: RunSettings, scanId: string, log: (line: string) => void): Promise<number> {
  const tty = Boolean(process.stderr.isTTY) && !s.json;
  let last = '';
  let results: ScanResults;
  try {
    results = await followScan(s.client, scanId, s.pollMs, s.patience, (body) => {
      const percent = Math.round(Number(body?.progress_percent ?? (body?.status === 'completed' ? 100 : 0)));
      const phase = typeof body?.phase === 'string' ? body.phase : body?.status;
      const findings =
        typeof body?.findings === 'number' ? body.findings : ['completed', 'failed', 'cancelled'].includes(body?.status) ? Number(body?.failed ?? 0) : null;
      const line = `progress ${percent}% status=${body?.status} phase=${phase}${findings === null ? '' : ` findings=${findings}`}`;
      if (tty) {
        const width = 30;
        const filled = Math.round((Math.min(100, Math.max(0, percent)) / 100) * width);
        log(
          `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(percent).padStart(3)}% ${String(phase).padEnd(10)}${findings === null ? '' : ` ${findings} finding(s)`}`,
        );
      } else if (line !== last) log(`${line}\n`);
      last = line;
    });
    if (tty) log('\n');
  } catch (error) {
    if (tty) log('\n');
    if (error instanceof ApiFailure) {
      printApiError(error, s.json);
      return error.status === 401 || error.status === 403 || error.status === 429
        ? SCAN_EXIT.refused
        : error.status === 404
          ? SCAN_EXIT.usage
          : SCAN_EXIT.scanFailed;
    }
    throw error;
  }

  const warnings: string[] = Array.isArray(results.warnings) ? results.warnings.filter((w: unknown): w is string => typeof w === 'string') : [];
  for (const warning of warnings) log(`warning: ${warning}\n`);

  const baseline = results.status === 'completed' ? await loadBaseline(s, results) : null;
  const gate: GateResult = judge(results, {
    failOn: s.failOn,
    failOnA11y: s.failOnA11y,
    failOnVisual: s.failOnVisual,
    budgets: s.budgets,
    suppressions: s.suppressions,
    baseline: baseline?.keys ?? null,
    today: new Date().toISOString().slice(0, 10),
    accessibilityScores: results.status === 'completed' ? await accessibilityScores(s, results) : undefined,
    failOnCoverage: s.failOnCoverage,
  });
  for (const note of gate.notes) log(`note: ${note}\n`);
  const { written, failed: writeFailures } = await writeOutputs(s, results, gate);
  const exit = gate.exit === 2 ? SCAN_EXIT.scanFailed : writeFailures.length ? SCAN_EXIT.output : gate.exit;

  let deliveries: Awaited<ReturnType<typeof sendAll>> = [];
  if (s.channels.length) {
    // Links open the dashboard of the server the scan ran on, unless VIGIL_APP_URL names another.
    const appUrl = process.env.VIGIL_APP_URL ?? `${s.client.config.url.replace(/\/api\/v1$/, '')}/app`;
    deliveries = await sendAll(
      s.channels,
      scanEvents(
        { ...results, url: results.url ?? s.target ?? '', spec_url: s.specLabel ?? results.spec_url ?? null },
        { appUrl, thresholdReached: gate.exit === 1 },
      ),
      { timeoutMs: s.notifyTimeoutMs, attempts: 3, backoffMs: 500 },
    );
    for (const d of deliveries) if (!d.ok) log(`warning: notification ${d.event} to ${d.channel} failed after ${d.attempts} attempt(s): ${d.error}\n`);
  }

  const gateJson = {
    fail_on: s.failOn,
    fail_on_a11y: s.failOnA11y,
    fail_on_visual: s.failOnVisual,
    failing: gate.failing,
    below_threshold: gate.below,
    suppressed: gate.suppressed.map(({ item, suppression }) => ({ ...item, suppression })),
    expired_suppressions: gate.expired.map(({ item, suppression }) => ({ ...item, suppression })),
    known: gate.known,
    baseline: baseline?.label ?? null,
    budget_violations: gate.budgetViolations,
    notes: gate.notes,
  };
  if (s.json) {
    printJson({
      scan_id: scanId,
      status: results.status,
      exit_code: exit,
      gate_failed: gate.exit === 1,
      threshold_reached: gate.exit === 1,
      fail_on: s.failOn,
      severity_counts: results.severity_counts,
      passed: results.passed,
      failed: results.failed,
      total: results.total,
      elapsed_seconds: results.elapsed_seconds,
      failure_reason: results.failure_reason ?? null,
      warnings,
      gate: gateJson,
      outputs: written,
      output_errors: writeFailures,
      output: written[0] ?? null,
      notifications: deliveries,
      results,
    });
    return exit;
  }
  const paint = painter(s.color);
  const counts: Partial<NonNullable<ScanResults['severity_counts']>> = results.severity_counts ?? {};
  const sevColor = { critical: 'magenta', high: 'red', medium: 'yellow', low: 'blue', info: 'gray' } as const;
  const rows = [
    ['scan', scanId],
    ['status', results.status === 'completed' ? paint('green', results.status) : paint('red', String(results.status))],
    ['tasks', `${results.passed ?? 0} passed, ${results.failed ?? 0} failed, ${results.total ?? 0} total`],
    [
      'findings',
      (['critical', 'high', 'medium', 'low', 'info'] as const).map((sv) => (counts[sv] ? paint(sevColor[sv], `${sv} ${counts[sv]}`) : `${sv} 0`)).join(', '),
    ],
    [
      'gate',
      `fail on ${s.failOn}, accessibility ${s.failOnA11y}, visual ${s.failOnVisual ? 'on' : 'off'}${s.budgets.length ? `, ${s.budgets.length} budget(s)` : ''}${s.suppressions.length ? `, ${s.suppressions.length} suppression(s)` : ''}${baseline ? `, baseline ${baseline.label}` : ''}`,
    ],
    ['duration', `${results.elapsed_seconds ?? 0} s`],
  ];
  if (results.failure_reason) rows.push(['reason', String(results.failure_reason)]);
  if (warnings.length) rows.push(['warnings', `${warnings.length} (see above)`]);
  if (written.length) rows.push(['reports', written.join(', ')]);
  if (writeFailures.length) rows.push(['not written', paint('red', writeFailures.map((f) => f.path).join(', '))]);
  // What was not tested leads the summary: a scan that reached little is never read as a clean one.
  const untested = renderNotTested(results.not_tested, paint);
  if (untested) process.stdout.write(`${untested}\n\n`);
  process.stdout.write(`${table(rows)}\n`);
  const detail = renderGate(gate, paint, baseline?.label ?? null);
  if (detail) process.stdout.write(`${detail}\n`);
  const verdict =
    exit === SCAN_EXIT.scanFailed
      ? paint('red', `SCAN ${String(results.status).toUpperCase()}`)
      : exit === SCAN_EXIT.output
        ? paint(
            'red',
            `FAILED: ${writeFailures.length} report(s) could not be written${gate.exit === 1 ? `; and the gate failed: ${failureSummary(gate, s.failOn, s.failOnA11y)}` : ''}`,
          )
        : exit === SCAN_EXIT.gate
          ? paint('red', `FAILED: ${failureSummary(gate, s.failOn, s.failOnA11y)}`)
          : paint('green', 'PASSED');
  process.stdout.write(`\n${verdict}\n`);
  return exit;
}

function followSettings(v: Values, cfg: ProjectConfig, cwd: string, loaded: ProjectConfig): Omit<RunSettings, 'specFile' | 'specLabel' | 'target'> {
  const json = Boolean(v.json);
  return {
    client: clientFrom({ url: str(v, 'url'), 'api-key': str(v, 'api-key') }, loaded),
    json,
    color: !json && colorEnabled(Boolean(v['no-color'])),
    pollMs: seconds('poll-interval', str(v, 'poll-interval'), 5),
    patience: {
      queueWaitMs: seconds('queue-wait', str(v, 'queue-wait'), 600),
      reconnectMs: seconds('reconnect-timeout', str(v, 'reconnect-timeout'), 300),
      log: (l) => void process.stderr.write(l),
    },
    ...gateSettings(v, cfg, cwd),
    outputs: outputSettings(v),
    ...notifySettings(v, cfg),
  };
}

function loadConfigFor(flags: Values) {
  const loaded = loadProjectConfig({ file: str(flags, 'config'), profile: str(flags, 'profile'), strict: true });
  for (const w of loaded.warnings) process.stderr.write(`warning: ${w}\n`);
  return loaded;
}

export async function scanCommand(args: string[]): Promise<number> {
  const { values: flags, positionals } = parseCommandArgs(args, OPTIONS, true);
  if (flags.help) {
    process.stdout.write(`${SCAN_HELP}\n`);
    return 0;
  }
  const loaded = loadConfigFor(flags);
  const cfg = loaded.config;
  const v = mergeValues(configValues(cfg), flags as Values);
  if (positionals.length > 1) throw new UsageError('vigil scan takes one target URL (see vigil scan --help)');
  const target = positionals[0] ?? (typeof cfg.target === 'string' ? cfg.target : undefined);
  if (!target)
    throw new UsageError(
      `vigil scan needs a target URL: vigil scan <url>${loaded.file ? ` (or "target" in ${loaded.file})` : ', or "target" in vigil.config.yaml'}`,
    );
  try {
    new URL(target);
  } catch {
    throw new UsageError(`"${target}" is not a valid URL`);
  }
  const settings = followSettings(v, cfg, process.cwd(), cfg);
  const body = startBody(target, v, settings.failOn);
  // The server judges the budgets: each page lists its lines (reports, dashboard, triage) and the gate reads them.
  if (settings.budgets.length && body.mode && body.mode !== 'security') body.options = { ...body.options, budgets: settings.budgets as ServerBudgets };
  let specFile: string | undefined;
  const spec = str(v, 'spec');
  if (spec !== undefined) {
    if (/^https?:\/\//i.test(spec)) body.spec_url = spec;
    else if (existsSync(spec)) specFile = spec;
    else throw new UsageError(`--spec: "${spec}" is neither an http(s) URL nor a readable file`);
  }
  const s: RunSettings = { ...settings, specFile, specLabel: body.spec_url ?? (specFile ? basename(specFile) : null), target };
  const log = (line: string) => void process.stderr.write(line);
  const ci = ciMetadata({ branch: str(v, 'branch'), commit: str(v, 'commit'), pr: str(v, 'pr') }, process.env, !v['no-ci'], log);
  if (ci) body.ci = ci;
  const client = s.client;

  let started: ResponseBody<'post', '/scan'> | ResponseBody<'post', '/scan/upload'>;
  // One key for this run's start, sent with every attempt: a retry after a lost answer never starts (or charges) a second scan.
  const idempotency = { 'Idempotency-Key': `vigil-cli-${randomUUID()}` };
  try {
    started = await startPatiently(
      acceptingBudgets(body, idempotency, log, async () => {
        if (specFile) {
          const form = new FormData();
          form.set('base_url', target);
          if (body.mode) form.set('mode', String(body.mode));
          if (body.auth) form.set('auth', JSON.stringify(body.auth));
          if (body.options) form.set('options', JSON.stringify(body.options));
          if (body.reset_baseline) form.set('reset_baseline', 'true');
          if (body.ci) form.set('ci', JSON.stringify(body.ci));
          form.set('spec_file', new Blob([readFileSync(specFile)]), basename(specFile));
          return (await client.call('post', '/scan/upload', { form, headers: idempotency })).body;
        }
        return (await client.call('post', '/scan', { json: body, headers: idempotency })).body;
      }),
      s.patience,
      true,
    );
  } catch (error) {
    if (error instanceof ApiFailure) {
      printApiError(error, s.json);
      return exitCodeFor(error);
    }
    throw error;
  }
  if (typeof started?.scan_id !== 'string') {
    // A 2xx without Vigil's answer: a web server or app at VIGIL_URL took the request.
    printApiError(notVigil(client.config.url, 'POST /scan', 'without a scan id'), s.json);
    return SCAN_EXIT.usage;
  }
  const scanId: string = started.scan_id;
  log(`scan ${scanId} ${started.status} (${body.mode ?? 'security'} scan of ${target}${ci && ciSummary(ci) ? `; ${ciSummary(ci)}` : ''})\n`);
  if (v['no-wait']) {
    if (s.json) printJson(started);
    else process.stdout.write(`${scanId}\n`);
    return 0;
  }
  return followAndJudge(s, scanId, log);
}

const WAIT_OPTIONS = { ...CONNECTION_OPTIONS, ...GATE_OPTIONS, spec: { type: 'string' } } as const;

/** `vigil scans wait <scan_id>`: resumes following a scan (e.g. one started with --no-wait). */
export async function waitCommand(args: string[]): Promise<number> {
  const { values: flags, positionals } = parseCommandArgs(args, WAIT_OPTIONS, true);
  if (flags.help) {
    process.stdout.write(`${WAIT_HELP}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('vigil scans wait takes one scan id (see vigil scans wait --help)');
  const loaded = loadConfigFor(flags);
  const v = mergeValues(configValues(loaded.config), flags as Values);
  const s: RunSettings = {
    ...followSettings(v, loaded.config, process.cwd(), loaded.config),
    specFile: str(v, 'spec') && existsSync(str(v, 'spec')!) ? str(v, 'spec') : undefined,
  };
  process.stderr.write(`following scan ${positionals[0]}\n`);
  return followAndJudge(s, positionals[0]!, (line) => void process.stderr.write(line));
}
