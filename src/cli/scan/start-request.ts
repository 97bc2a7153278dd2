/** The POST /scan body, built from the flag values. */
import type { RequestBody } from '../../api-client/calls.js';
import type { FailOn } from '../gate.js';
import { UsageError } from '../usage-error.js';
import { AUTH_FIELDS, AUTH_TYPES, LOGIN_FIELDS, loginFlag } from './flags.js';
import { int, list, oneOf, str, type Values } from './values.js';

/** Levels the server knows for options.fail_on (info and none are the CLI's own). */
const SERVER_FAIL_ON = ['critical', 'high', 'medium', 'low'] as const;
const isServerFailOn = (level: string): level is (typeof SERVER_FAIL_ON)[number] => (SERVER_FAIL_ON as readonly string[]).includes(level);

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
export type ServerBudgets = NonNullable<NonNullable<StartScanRequest['options']>['budgets']>;

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
