/**
 * The start-a-scan request: the checks its schema (schemas/scan-request.ts) cannot express, defaults,
 * and schema validation of bodies that did not come through a route schema.
 */
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { DEFAULT_BRANCH } from '../domain/artifacts.js';
import { isScoreBudget } from '../domain/budgets.js';
import { branchNameProblem, shortBranch, type ScanCi } from '../domain/ci.js';
import type { LoginSettings, ScanInput, ScanMode, ScanOptions, TargetAuth } from '../domain/scan.js';
import { unknownAxeRules } from '../engines/functional/accessibility/rules.js';
import { validationError, type FieldProblem } from './errors.js';
import { LIMITS, ScanRequestSchema, type ScanRequest } from './schemas/scan-request.js';
import { estimateOperations } from '../engines/security/spec-size.js';
import { CONTROL_MESSAGE, HEADER_VALUE_MESSAGE, hasControlCharacter, isHeaderValue } from './text-rules.js';

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

const REQUIRED_BY_AUTH_TYPE: Record<TargetAuth['type'], Array<keyof TargetAuth>> = {
  bearer: ['token'],
  header: ['header_name', 'header_value'],
  basic: ['username', 'password'],
  oauth2: ['oauth2_token_url', 'oauth2_client_id', 'oauth2_client_secret'],
  login: ['username', 'password', 'login'],
  none: [],
};

/** The password grant names the user; the client is optional (public clients have no secret). */
const REQUIRED_BY_PASSWORD_GRANT: Array<keyof TargetAuth> = ['oauth2_token_url', 'username', 'password'];

/** Auth fields sent as (part of) a request header exactly as given. */
const HEADER_SENT_FIELDS = ['token', 'header_value'] as const;

/** A URL field: no control characters, then absolute http(s). */
/**
 * A URL's (or a path's) length as stored and indexed: percent-encoded, as a page's baseline key holds
 * it, or its UTF-8 bytes if that is more. Counting characters let 2,048 CJK characters (18,432 once
 * encoded) through to an index entry PostgreSQL refuses over 2,704 bytes.
 */
export function storedUrlLength(value: string): number {
  let encoded = 0;
  try {
    encoded = value.startsWith('/') ? new URL(value, 'http://h').href.length - 'http://h'.length : new URL(value).href.length;
  } catch {}
  return Math.max(encoded, Buffer.byteLength(value));
}

const URL_LENGTH_MESSAGE = `must be at most ${LIMITS.urlLength} characters once percent-encoded (a non-ASCII character counts as its encoding, e.g. 9 for 漢)`;

function urlProblem(value: string, field: string): FieldProblem | undefined {
  if (hasControlCharacter(value)) return { field, message: CONTROL_MESSAGE };
  if (!isHttpUrl(value)) return { field, message: 'must be an absolute http or https URL' };
  if (storedUrlLength(value) > LIMITS.urlLength) return { field, message: URL_LENGTH_MESSAGE };
  return undefined;
}

/** A login URL: absolute http(s), or a path on the target. */
function loginUrlProblem(value: string, field: string): FieldProblem | undefined {
  if (value.startsWith('/') && !value.startsWith('//')) return hasControlCharacter(value) ? { field, message: CONTROL_MESSAGE } : undefined;
  const p = urlProblem(value, field);
  return p && p.message !== CONTROL_MESSAGE ? { field, message: 'must be an absolute http or https URL, or a path starting with /' } : p;
}

function loginProblems(login: LoginSettings, path: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if ((login.url === undefined) === (login.operation === undefined)) problems.push({ field: `${path}.url`, message: 'give exactly one of url and operation' });
  if (login.method !== undefined && login.url === undefined)
    problems.push({ field: `${path}.method`, message: 'applies to url (an operation has its own method)' });
  for (const field of ['url', 'csrf_url'] as const) {
    const value = login[field];
    const p = value === undefined ? undefined : loginUrlProblem(value, `${path}.${field}`);
    if (p) problems.push(p);
  }
  const sources = (['token_pointer', 'token_header', 'token_cookie'] as const).filter((f) => login[f] !== undefined);
  if (sources.length > 1)
    problems.push({
      field: `${path}.${sources[1]}`,
      message: `give at most one of token_pointer, token_header and token_cookie (${sources.join(' and ')} given)`,
    });
  if (login.token_cookie !== undefined && (login.send_header !== undefined || login.send_scheme !== undefined)) {
    problems.push({
      field: `${path}.${login.send_header !== undefined ? 'send_header' : 'send_scheme'}`,
      message: 'a cookie session (token_cookie) is sent back as its cookies, not in a header',
    });
  }
  if (login.csrf_cookie !== undefined && login.csrf_pointer !== undefined)
    problems.push({ field: `${path}.csrf_pointer`, message: 'give at most one of csrf_cookie and csrf_pointer' });
  for (const field of ['csrf_header', 'csrf_url'] as const) {
    if (login[field] !== undefined && login.csrf_cookie === undefined && login.csrf_pointer === undefined)
      problems.push({ field: `${path}.${field}`, message: 'needs csrf_cookie or csrf_pointer (where the CSRF token is read)' });
  }
  for (const field of ['token_cookie', 'csrf_cookie', 'username_field', 'password_field', 'operation'] as const) {
    const value = login[field];
    if (value !== undefined && hasControlCharacter(value)) problems.push({ field: `${path}.${field}`, message: CONTROL_MESSAGE });
  }
  for (const field of ['token_cookie', 'csrf_cookie'] as const) {
    const value = login[field];
    if (value !== undefined && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value))
      problems.push({ field: `${path}.${field}`, message: "must be a cookie name (letters, digits and !#$%&'*+.^_`|~-)" });
  }
  return problems;
}

function authProblems(auth: TargetAuth | undefined, path: string): FieldProblem[] {
  if (!auth) return [];
  const problems: FieldProblem[] = [];
  const passwordGrant = auth.type === 'oauth2' && auth.oauth2_grant_type === 'password';
  for (const field of passwordGrant ? REQUIRED_BY_PASSWORD_GRANT : REQUIRED_BY_AUTH_TYPE[auth.type]) {
    if (auth[field] === undefined)
      problems.push({ field: `${path}.${field}`, message: `is required when ${path}.type is ${auth.type}${passwordGrant ? ' with the password grant' : ''}` });
  }
  if (auth.oauth2_grant_type !== undefined && auth.type !== 'oauth2')
    problems.push({ field: `${path}.oauth2_grant_type`, message: `applies only when ${path}.type is oauth2` });
  if (auth.login !== undefined && auth.type !== 'login') problems.push({ field: `${path}.login`, message: `applies only when ${path}.type is login` });
  if (auth.login !== undefined && auth.type === 'login') problems.push(...loginProblems(auth.login, `${path}.login`));
  const tokenUrl = auth.oauth2_token_url !== undefined ? urlProblem(auth.oauth2_token_url, `${path}.oauth2_token_url`) : undefined;
  if (tokenUrl) problems.push(tokenUrl);
  for (const field of HEADER_SENT_FIELDS) {
    const value = auth[field];
    if (value !== undefined && !isHeaderValue(value)) problems.push({ field: `${path}.${field}`, message: HEADER_VALUE_MESSAGE });
  }
  return problems;
}

type PageEntry = NonNullable<NonNullable<ScanRequest['options']>['pages']>[number];

/** Each page a path or an absolute URL; labels unique and not path-like (a label is a baseline key, as a path is). */
function pageProblems(pages: PageEntry[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const labels = new Map<string, number>();
  for (const [i, page] of pages.entries()) {
    const url = typeof page === 'string' ? page : page.url;
    const field = typeof page === 'string' ? `options.pages.${i}` : `options.pages.${i}.url`;
    if (hasControlCharacter(url)) problems.push({ field, message: CONTROL_MESSAGE });
    else if (!url.startsWith('/') && !isHttpUrl(url)) problems.push({ field, message: 'must be a path starting with / or an absolute http or https URL' });
    else if (storedUrlLength(url) > LIMITS.urlLength) problems.push({ field, message: URL_LENGTH_MESSAGE });
    if (typeof page === 'string' || page.label === undefined) continue;
    const labelField = `options.pages.${i}.label`;
    const first = labels.get(page.label);
    if (hasControlCharacter(page.label)) problems.push({ field: labelField, message: CONTROL_MESSAGE });
    else if (page.label.startsWith('/')) problems.push({ field: labelField, message: 'must not start with / (paths are the keys of unlabelled pages)' });
    else if (first !== undefined) problems.push({ field: labelField, message: `duplicates options.pages.${first}.label; labels must be unique` });
    else labels.set(page.label, i);
  }
  return problems;
}

/** The pages to visit, as URLs or paths, the labels of those given with one, and the pages' own visual thresholds. */
function pageOptions(pages: PageEntry[]): Pick<ScanOptions, 'pages' | 'page_labels' | 'page_thresholds'> {
  const labelled = pages.flatMap((p) => (typeof p !== 'string' && p.label !== undefined ? [{ label: p.label, url: p.url }] : []));
  const thresholds = pages.flatMap((p) =>
    typeof p !== 'string' && (p.diff_threshold_percent !== undefined || p.min_region_px !== undefined)
      ? [
          {
            url: p.url,
            ...(p.diff_threshold_percent !== undefined ? { diff_threshold_percent: p.diff_threshold_percent } : {}),
            ...(p.min_region_px !== undefined ? { min_region_px: p.min_region_px } : {}),
          },
        ]
      : [],
  );
  return {
    pages: pages.map((p) => (typeof p === 'string' ? p : p.url)),
    ...(labelled.length ? { page_labels: labelled } : {}),
    ...(thresholds.length ? { page_thresholds: thresholds } : {}),
  };
}

/** The start request's `ci`, checked beyond its schema (git ref name rules, URLs) and normalised: commit in lower case, pr as text, `refs/heads/` dropped. */
function ciProblems(ci: ScanRequest['ci']): FieldProblem[] {
  if (!ci) return [];
  const problems: FieldProblem[] = [];
  for (const field of ['branch', 'base_branch'] as const) {
    const value = ci[field];
    const problem = value === undefined ? undefined : branchNameProblem(shortBranch(value));
    if (problem) problems.push({ field: `ci.${field}`, message: problem });
  }
  for (const field of ['repository_url', 'run_url'] as const) {
    const value = ci[field];
    const problem = value === undefined ? undefined : urlProblem(value, `ci.${field}`);
    if (problem) problems.push(problem);
  }
  return problems;
}

function normalizeCi(ci: NonNullable<ScanRequest['ci']>): ScanCi | undefined {
  const out: ScanCi = {
    ...(ci.provider ? { provider: ci.provider } : {}),
    ...(ci.repository ? { repository: ci.repository } : {}),
    ...(ci.repository_url ? { repository_url: ci.repository_url } : {}),
    ...(ci.branch ? { branch: shortBranch(ci.branch) } : {}),
    ...(ci.base_branch ? { base_branch: shortBranch(ci.base_branch) } : {}),
    ...(ci.commit ? { commit: ci.commit.toLowerCase() } : {}),
    ...(ci.pr !== undefined ? { pr: String(ci.pr) } : {}),
    ...(ci.run_url ? { run_url: ci.run_url } : {}),
  };
  return Object.keys(out).length ? out : undefined;
}

export interface SpecLimits {
  /** VIGIL_SPEC_MAX_BYTES: largest decoded spec. */
  specMaxBytes: number;
  /** VIGIL_SPEC_MAX_OPERATIONS: most operations an inline spec may have. */
  specMaxOperations: number;
  /** The field the spec came in, for messages (spec_file for uploads). */
  specField?: string;
}

/**
 * Checks what the schema cannot (URLs, base64, auth fields per type) and fills in defaults. Throws 422
 * VALIDATION_ERROR listing every problem.
 */
export function normalizeScanRequest(body: ScanRequest, limits: SpecLimits, forcedMode?: ScanMode): ScanInput {
  const { specMaxBytes, specMaxOperations, specField = 'spec_content' } = limits;
  const problems: FieldProblem[] = [];
  const push = (problem: FieldProblem | undefined) => problem && problems.push(problem);
  push(urlProblem(body.url, 'url'));
  if (body.spec_url !== undefined) push(urlProblem(body.spec_url, 'spec_url'));
  if (body.spec_url !== undefined && body.spec_content !== undefined) {
    problems.push({ field: 'spec_content', message: 'cannot be combined with spec_url; give one of them' });
  }
  let specText: string | undefined;
  if (body.spec_content !== undefined) {
    const compact = body.spec_content.replace(/\s+/g, '');
    if (!BASE64.test(compact) || compact.length % 4 === 1) {
      problems.push({ field: 'spec_content', message: 'must be base64-encoded' });
    } else {
      const bytes = Buffer.from(compact, 'base64');
      if (bytes.length > specMaxBytes) problems.push({ field: 'spec_content', message: `decodes to ${bytes.length} bytes; the limit is ${specMaxBytes}` });
      else if (bytes.length === 0) problems.push({ field: 'spec_content', message: 'is empty' });
      else specText = bytes.toString('utf8');
    }
  }
  if (specText !== undefined) {
    // A spec whose operations cannot be told cheaply (invalid, flow-style YAML) is counted by the worker.
    const operations = estimateOperations(specText);
    if (operations !== undefined && operations > specMaxOperations) {
      problems.push({ field: specField, message: `has ${operations} operations; the limit is ${specMaxOperations} (VIGIL_SPEC_MAX_OPERATIONS)` });
    }
  }
  problems.push(...authProblems(body.auth as TargetAuth | undefined, 'auth'));
  problems.push(...authProblems(body.auth?.secondary as TargetAuth | undefined, 'auth.secondary'));
  // A first identity of type none is dropped with its auth object: the second would vanish unseen.
  if (body.auth?.type === 'none' && body.auth.secondary) problems.push({ field: 'auth.secondary', message: 'needs a first identity: auth.type is none' });
  problems.push(...pageProblems(body.options?.pages ?? []));
  for (const [i, pattern] of (body.options?.exclude ?? []).entries()) {
    if (hasControlCharacter(pattern)) problems.push({ field: `options.exclude.${i}`, message: CONTROL_MESSAGE });
  }
  for (const list of ['enable', 'disable'] as const) {
    const ids = body.options?.accessibility_rules?.[list] ?? [];
    for (const id of unknownAxeRules(ids))
      problems.push({ field: `options.accessibility_rules.${list}.${ids.indexOf(id)}`, message: `is not an axe-core rule id: ${id}` });
  }
  for (const [i, b] of (body.options?.budgets ?? []).entries()) {
    const limits = (b.max === undefined ? 0 : 1) + (b.min === undefined ? 0 : 1);
    if (limits !== 1)
      problems.push({ field: `options.budgets.${i}`, message: 'needs exactly one of max (a metric) or min (the performance or accessibility score)' });
    else if (isScoreBudget(b.metric) !== (b.min !== undefined))
      problems.push({
        field: `options.budgets.${i}`,
        message: isScoreBudget(b.metric) ? `${b.metric} is a score: give min` : `${b.metric} is a timing or shift: give max`,
      });
  }
  problems.push(...ciProblems(body.ci));
  if (problems.length > 0) throw validationError(problems);

  const o = body.options ?? {};
  const ci = body.ci && normalizeCi(body.ci);
  const options: ScanOptions = {
    concurrency: o.concurrency ?? LIMITS.concurrency.default,
    timeout: o.timeout ?? LIMITS.timeout.default,
    ...(o.fail_on ? { fail_on: o.fail_on } : {}),
    exclude: o.exclude ?? [],
    safe_mode: o.safe_mode ?? false,
    ...(o.pages ? pageOptions(o.pages) : {}),
    ...(o.branch ? { branch: o.branch } : {}),
    default_branch: o.default_branch ?? DEFAULT_BRANCH,
    max_pages: o.max_pages ?? LIMITS.maxPages.default,
    diff_threshold_percent: o.diff_threshold_percent ?? 0.5,
    min_region_px: o.min_region_px ?? LIMITS.minRegionPx.default,
    ...(o.ignore_regions ? { ignore_regions: o.ignore_regions } : {}),
    viewport: o.viewport ?? { width: 1280, height: 800 },
    ...(o.mask ? { mask: o.mask } : {}),
    device: o.device ?? 'desktop',
    throttling: o.throttling ?? 'simulate',
    ...(o.budgets?.length ? { budgets: o.budgets.map((b) => ({ ...b, level: b.level ?? 'error' })) } : {}),
    accessibility_profile: o.accessibility_profile ?? 'wcag21aa',
    accessibility_best_practices: o.accessibility_best_practices ?? false,
    ...(o.accessibility_rules ? { accessibility_rules: o.accessibility_rules } : {}),
  };
  return {
    url: body.url,
    mode: forcedMode ?? body.mode ?? 'security',
    ...(body.spec_url ? { spec_url: body.spec_url } : {}),
    ...(specText !== undefined ? { spec_text: specText } : {}),
    ...(body.auth && body.auth.type !== 'none' ? { auth: body.auth as ScanInput['auth'] } : {}),
    options,
    reset_baseline: body.reset_baseline ?? false,
    ...(ci ? { ci } : {}),
  };
}

const compiled = TypeCompiler.Compile(ScanRequestSchema as TSchema);

/**
 * Schema validation for bodies that did not come through a route schema (multipart forms, whose
 * values scan-form.ts has already typed: no TypeBox conversion here, it would truncate 1.5 to 1 and read 1e400 as 1).
 */
export function checkScanRequestSchema(value: unknown): ScanRequest {
  if (compiled.Check(value)) return value as ScanRequest;
  const problems: FieldProblem[] = [];
  for (const error of compiled.Errors(value)) {
    const field = error.path.replace(/^\//, '').replace(/\//g, '.') || '(root)';
    if (!problems.some((p) => p.field === field)) problems.push({ field, message: error.message.toLowerCase() });
  }
  throw validationError(problems);
}
