/**
 * The start-a-scan request: its schema (shared by POST /scan, /security-scan, /functional/run and the
 * multipart upload) and the checks a schema cannot express. Limits are documented in docs/scans.md.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { SCAN_MODES, type ScanInput, type ScanMode, type ScanOptions, type TargetAuth } from '../domain/scan.js';
import { validationError, type FieldProblem } from './errors.js';
import { StringEnum } from './schemas.js';
import { estimateOperations } from '../engines/security/spec-size.js';
import { CONTROL_MESSAGE, HEADER_VALUE_MESSAGE, hasControlCharacter, isHeaderValue } from './text-rules.js';

export const LIMITS = {
  urlLength: 2048,
  concurrency: { min: 1, max: 50, default: 5 },
  timeout: { min: 1, max: 300, default: 30 },
  excludePatterns: 100,
  patternLength: 512,
  pages: 50,
  maxPages: { min: 1, max: 100, default: 10 },
  masks: 50,
  viewport: { minWidth: 320, maxWidth: 3840, minHeight: 240, maxHeight: 4320 },
} as const;

const AuthFields = {
  type: StringEnum(['bearer', 'header', 'basic', 'oauth2', 'none'] as const, { description: 'Which of the fields below apply' }),
  token: Type.Optional(Type.String({ minLength: 1, maxLength: 8192, description: 'bearer: the token sent as `Authorization: Bearer <token>`' })),
  header_name: Type.Optional(Type.String({ minLength: 1, maxLength: 256, pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", description: 'header: header name' })),
  header_value: Type.Optional(Type.String({ maxLength: 8192, description: 'header: header value' })),
  username: Type.Optional(Type.String({ maxLength: 1024, description: 'basic: user name' })),
  password: Type.Optional(Type.String({ maxLength: 1024, description: 'basic: password' })),
  oauth2_token_url: Type.Optional(Type.String({ maxLength: LIMITS.urlLength, description: 'oauth2: token endpoint (client credentials grant)' })),
  oauth2_client_id: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  oauth2_client_secret: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  oauth2_scope: Type.Optional(Type.String({ maxLength: 2048 })),
};

const TargetAuthSchema = Type.Object(
  {
    ...AuthFields,
    secondary: Type.Optional(
      Type.Object(AuthFields, {
        additionalProperties: false,
        description: 'A second identity of the same shape (another ordinary user): resources of the first are read, changed and deleted with it (BOLA), and operations meant for the first are tried with it (BFLA). Without it those checks do not run, and the coverage section says so',
      }),
    ),
  },
  { additionalProperties: false, description: 'Credentials for the scan target (secrets: encrypted at rest, never returned, deleted when the scan ends)' },
);

const ScanOptionsSchema = Type.Object(
  {
    concurrency: Type.Optional(Type.Integer({ minimum: LIMITS.concurrency.min, maximum: LIMITS.concurrency.max, description: 'Parallel requests (security) or pages (functional); default 5' })),
    timeout: Type.Optional(Type.Integer({ minimum: LIMITS.timeout.min, maximum: LIMITS.timeout.max, description: 'Seconds per request (per page in functional mode); default 30' })),
    fail_on: Type.Optional(StringEnum(['critical', 'high', 'medium', 'low'] as const, { description: 'Severity at or above which the scan counts as failing (reported as threshold_reached)' })),
    exclude: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: LIMITS.patternLength }), {
        maxItems: LIMITS.excludePatterns,
        description: 'Paths or URLs to skip. `*` matches any run of characters; a pattern without `*` matches that path and everything under it',
      }),
    ),
    safe_mode: Type.Optional(
      Type.Boolean({
        description:
          'Security: skip operations that look destructive or global (reset, init, seed, purge, flush, drop, recreate; DELETE on a collection); ' +
          'the coverage section lists them as skipped ("safe mode"). Default false: they run, last',
      }),
    ),
    pages: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: LIMITS.urlLength }), { maxItems: LIMITS.pages, description: 'Functional: pages to test (absolute URLs on the target, or paths); default: crawl from url' }),
    ),
    max_pages: Type.Optional(Type.Integer({ minimum: LIMITS.maxPages.min, maximum: LIMITS.maxPages.max, description: 'Functional: crawl bound; default 10' })),
    diff_threshold_percent: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'Functional: percent of changed pixels above which a diff is reported; default 0.5' })),
    viewport: Type.Optional(
      Type.Object(
        {
          width: Type.Integer({ minimum: LIMITS.viewport.minWidth, maximum: LIMITS.viewport.maxWidth }),
          height: Type.Integer({ minimum: LIMITS.viewport.minHeight, maximum: LIMITS.viewport.maxHeight }),
        },
        { additionalProperties: false, description: 'Functional: default 1280x800' },
      ),
    ),
    mask: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { maxItems: LIMITS.masks, description: 'Functional: CSS selectors painted over before screenshots' })),
    device: Type.Optional(StringEnum(['desktop', 'mobile'] as const, { description: 'Functional: performance scoring curves; default desktop' })),
    accessibility_profile: Type.Optional(
      StringEnum(['wcag21aa', 'wcag22aa', 'section508'] as const, { description: 'Functional: default wcag21aa; wcag22aa and section508 need the team plan or above' }),
    ),
  },
  { additionalProperties: false },
);

export const ScanRequestSchema = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: LIMITS.urlLength, description: 'Target base URL (absolute http or https)' }),
    mode: Type.Optional(StringEnum(SCAN_MODES, { description: 'security (default), functional or full' })),
    spec_url: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.urlLength, description: 'OpenAPI/Swagger document URL (absolute http or https)' })),
    spec_content: Type.Optional(Type.String({ minLength: 1, description: 'OpenAPI/Swagger document, base64 (JSON or YAML); alternative to spec_url; at most VIGIL_SPEC_MAX_BYTES decoded (5 MiB)' })),
    auth: Type.Optional(TargetAuthSchema),
    options: Type.Optional(ScanOptionsSchema),
    reset_baseline: Type.Optional(Type.Boolean({ description: 'Functional modes: replace the visual baseline with this scan\'s screenshots' })),
  },
  {
    additionalProperties: false,
    examples: [
      {
        url: 'https://api.example.com',
        mode: 'security',
        spec_url: 'https://api.example.com/openapi.json',
        auth: { type: 'bearer', token: 'eyJhbGciOi...', secondary: { type: 'bearer', token: 'eyJhbGciOj...' } },
        options: { concurrency: 5, timeout: 30, fail_on: 'high', exclude: ['/internal/*'], safe_mode: true },
      },
    ],
  },
);
export type ScanRequest = Static<typeof ScanRequestSchema>;

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
  none: [],
};

/** Auth fields sent as (part of) a request header exactly as given. */
const HEADER_SENT_FIELDS = ['token', 'header_value'] as const;

/** A URL field: no control characters, then absolute http(s). */
function urlProblem(value: string, field: string): FieldProblem | undefined {
  if (hasControlCharacter(value)) return { field, message: CONTROL_MESSAGE };
  if (!isHttpUrl(value)) return { field, message: 'must be an absolute http or https URL' };
  return undefined;
}

function authProblems(auth: TargetAuth | undefined, path: string): FieldProblem[] {
  if (!auth) return [];
  const problems: FieldProblem[] = [];
  for (const field of REQUIRED_BY_AUTH_TYPE[auth.type]) {
    if (auth[field] === undefined) problems.push({ field: `${path}.${field}`, message: `is required when ${path}.type is ${auth.type}` });
  }
  const tokenUrl = auth.oauth2_token_url !== undefined ? urlProblem(auth.oauth2_token_url, `${path}.oauth2_token_url`) : undefined;
  if (tokenUrl) problems.push(tokenUrl);
  for (const field of HEADER_SENT_FIELDS) {
    const value = auth[field];
    if (value !== undefined && !isHeaderValue(value)) problems.push({ field: `${path}.${field}`, message: HEADER_VALUE_MESSAGE });
  }
  return problems;
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
  for (const [i, page] of (body.options?.pages ?? []).entries()) {
    if (hasControlCharacter(page)) problems.push({ field: `options.pages.${i}`, message: CONTROL_MESSAGE });
    else if (!page.startsWith('/') && !isHttpUrl(page)) problems.push({ field: `options.pages.${i}`, message: 'must be a path starting with / or an absolute http or https URL' });
  }
  for (const [i, pattern] of (body.options?.exclude ?? []).entries()) {
    if (hasControlCharacter(pattern)) problems.push({ field: `options.exclude.${i}`, message: CONTROL_MESSAGE });
  }
  if (problems.length > 0) throw validationError(problems);

  const o = body.options ?? {};
  const options: ScanOptions = {
    concurrency: o.concurrency ?? LIMITS.concurrency.default,
    timeout: o.timeout ?? LIMITS.timeout.default,
    ...(o.fail_on ? { fail_on: o.fail_on } : {}),
    exclude: o.exclude ?? [],
    safe_mode: o.safe_mode ?? false,
    ...(o.pages ? { pages: o.pages } : {}),
    max_pages: o.max_pages ?? LIMITS.maxPages.default,
    diff_threshold_percent: o.diff_threshold_percent ?? 0.5,
    viewport: o.viewport ?? { width: 1280, height: 800 },
    ...(o.mask ? { mask: o.mask } : {}),
    device: o.device ?? 'desktop',
    accessibility_profile: o.accessibility_profile ?? 'wcag21aa',
  };
  return {
    url: body.url,
    mode: forcedMode ?? body.mode ?? 'security',
    ...(body.spec_url ? { spec_url: body.spec_url } : {}),
    ...(specText !== undefined ? { spec_text: specText } : {}),
    ...(body.auth && body.auth.type !== 'none' ? { auth: body.auth as ScanInput['auth'] } : {}),
    options,
    reset_baseline: body.reset_baseline ?? false,
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

