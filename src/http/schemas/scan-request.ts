/**
 * The start-a-scan request schema, shared by POST /scan, /security-scan, /functional/run and the
 * multipart upload (see scan-request.ts for the checks a schema cannot express). Limits are documented
 * in docs/scans.md.
 */
import { Type, type Static } from '@sinclair/typebox';
import { SCAN_MODES, THROTTLING_METHODS } from '../../domain/scan.js';
import { StringEnum } from './common.js';
import { BUDGET_NAMES, METRIC_FIELDS } from '../../domain/budgets.js';
import { CI_LIMITS, COMMIT_PATTERN, PR_PATTERN, PROVIDER_PATTERN, REPOSITORY_PATTERN } from '../../domain/ci.js';

export const LIMITS = {
  urlLength: 2048,
  concurrency: { min: 1, max: 50, default: 5 },
  timeout: { min: 1, max: 300, default: 30 },
  excludePatterns: 100,
  patternLength: 512,
  pages: 50,
  labelLength: 128,
  branchLength: 255,
  maxPages: { min: 1, max: 100, default: 10 },
  masks: 50,
  ignoreRegions: 50,
  minRegionPx: { min: 0, max: 100_000_000, default: 150 },
  axeRules: 100,
  viewport: { minWidth: 320, maxWidth: 3840, minHeight: 240, maxHeight: 4320 },
} as const;

const PageUrl = Type.String({ minLength: 1, maxLength: LIMITS.urlLength, description: 'An absolute URL on the target, or a path' });

const DiffThresholdPercent = (description: string) => Type.Number({ minimum: 0, maximum: 100, description });
const MinRegionPx = (description: string) => Type.Integer({ minimum: LIMITS.minRegionPx.min, maximum: LIMITS.minRegionPx.max, description });

const LabelledPage = Type.Object(
  {
    label: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: LIMITS.labelLength,
        description: "The page's baseline key (unique in the list; not starting with /); default: path and query",
      }),
    ),
    url: PageUrl,
    diff_threshold_percent: Type.Optional(DiffThresholdPercent("This page's own options.diff_threshold_percent")),
    min_region_px: Type.Optional(MinRegionPx("This page's own options.min_region_px")),
  },
  { additionalProperties: false, description: 'A page with a label (its baseline is kept under the label, whatever its URL) or visual thresholds of its own' },
);

const IgnoreRegion = Type.Object(
  {
    x: Type.Integer({ minimum: 0 }),
    y: Type.Integer({ minimum: 0 }),
    width: Type.Integer({ minimum: 1 }),
    height: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false, description: 'A rectangle of the full-page screenshot (CSS pixels from the top left of the page)' },
);

/** A git branch name as options.branch and the baseline routes take it. */
export const BranchName = (description: string) =>
  Type.String({ minLength: 1, maxLength: LIMITS.branchLength, pattern: '^[A-Za-z0-9._/@+-]+$', description, examples: ['main', 'feature/new-checkout'] });

const HeaderName = (description: string) => Type.String({ minLength: 1, maxLength: 256, pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", description });
const JsonPointer = (description: string) => Type.String({ maxLength: 512, pattern: '^(/.*)?$', description });
const LoginUrl = (description: string) => Type.String({ minLength: 1, maxLength: LIMITS.urlLength, description });

const LoginSchema = Type.Object(
  {
    url: Type.Optional(LoginUrl("The login operation's URL: absolute, or a path resolved against the target URL (`/api/auth/login`). Give url or operation")),
    method: Type.Optional(
      StringEnum(['POST', 'PUT', 'PATCH', 'GET'] as const, { description: 'With url: its method; default POST (GET sends the fields in the query)' }),
    ),
    operation: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description:
          "The login operation of the spec: its operationId (`auth_login_create`) or `METHOD /path`; its body's own field names and encoding are used",
      }),
    ),
    format: Type.Optional(
      StringEnum(['json', 'form'] as const, {
        description: "Body encoding: json (default; the operation's own with operation) or form (application/x-www-form-urlencoded)",
      }),
    ),
    username_field: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description:
          "Body field of the user name (auth.username); default: the operation's user or email field (inside its envelope too), else `username`. E.g. `email`; a field inside an envelope as a JSON pointer: `/user/email`",
      }),
    ),
    password_field: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description:
          "Body field of the password (auth.password); default: the operation's password field (inside its envelope too), else `password`; a field inside an envelope as a JSON pointer: `/user/password`",
      }),
    ),
    token_pointer: Type.Optional(JsonPointer('Where the token is in the JSON answer, as a JSON pointer (`/token`, `/data/access_token`)')),
    token_header: Type.Optional(HeaderName('The response header that carries the token (a leading scheme such as `Bearer` is dropped)')),
    token_cookie: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description:
          'A cookie session: the cookie the login must set (`connect.sid`, `sessionid`); every cookie the target sets is kept and sent back, as a browser does',
      }),
    ),
    send_header: Type.Optional(HeaderName('The header a token is sent in; default Authorization')),
    send_scheme: Type.Optional(
      Type.String({
        maxLength: 64,
        pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]*$",
        description: 'The scheme before the token: default `Bearer`; `Token` (Django REST Framework), `JWT`, any other; empty for the bare token',
      }),
    ),
    csrf_url: Type.Optional(
      LoginUrl('A page fetched (GET) before logging in that sets the CSRF cookie or answers the token (absolute, or a path on the target)'),
    ),
    csrf_cookie: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: 'The cookie the CSRF token is read from (`XSRF-TOKEN`, `csrftoken`), kept up to date as the target renews it',
      }),
    ),
    csrf_pointer: Type.Optional(JsonPointer('Where the CSRF token is in the JSON answer of csrf_url or of the login (`/csrfToken`)')),
    csrf_header: Type.Optional(HeaderName('The header the CSRF token is sent back in; default X-CSRF-Token (e.g. X-XSRF-TOKEN, X-CSRFToken)')),
  },
  {
    additionalProperties: false,
    description:
      'type login: how the identity logs in with auth.username and auth.password. A login counts only when its answer yields the credential (a 200 `{"status":"fail"}` without a token does not) and the credential then works; ' +
      'the identity logs in again when the credential expires or stops being accepted (docs/scans.md, "Identities that log in")',
    examples: [
      { url: '/api/auth/login/', username_field: 'username', token_pointer: '/token', send_scheme: 'Token' },
      {
        url: '/api/session',
        username_field: 'email',
        token_cookie: 'connect.sid',
        csrf_url: '/api/csrf-token',
        csrf_cookie: 'XSRF-TOKEN',
        csrf_header: 'X-XSRF-TOKEN',
      },
    ],
  },
);

const AuthFields = {
  type: StringEnum(['bearer', 'header', 'basic', 'oauth2', 'login', 'none'] as const, { description: 'Which of the fields below apply' }),
  token: Type.Optional(Type.String({ minLength: 1, maxLength: 8192, description: 'bearer: the token sent as `Authorization: Bearer <token>`' })),
  header_name: Type.Optional(HeaderName('header: header name')),
  header_value: Type.Optional(Type.String({ maxLength: 8192, description: 'header: header value' })),
  username: Type.Optional(Type.String({ maxLength: 1024, description: 'basic, login and oauth2 password grant: user name (or email)' })),
  password: Type.Optional(Type.String({ maxLength: 1024, description: 'basic, login and oauth2 password grant: password' })),
  oauth2_token_url: Type.Optional(Type.String({ maxLength: LIMITS.urlLength, description: 'oauth2: token endpoint' })),
  oauth2_grant_type: Type.Optional(
    StringEnum(['client_credentials', 'password'] as const, {
      description:
        'oauth2: client_credentials (default) or password (the resource owner password grant with username and password; a refresh token the endpoint gives is used when the access token expires)',
    }),
  ),
  oauth2_client_id: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'oauth2: client id (optional with the password grant)' })),
  oauth2_client_secret: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'oauth2: client secret (optional with the password grant)' })),
  oauth2_scope: Type.Optional(Type.String({ maxLength: 2048 })),
  login: Type.Optional(LoginSchema),
};

const TargetAuthSchema = Type.Object(
  {
    ...AuthFields,
    secondary: Type.Optional(
      Type.Object(AuthFields, {
        additionalProperties: false,
        description:
          'A second identity of the same shape (another ordinary user): resources of the first are read, changed and deleted with it (BOLA), and operations meant for the first are tried with it (BFLA). Without it those checks do not run, and the coverage section says so',
      }),
    ),
  },
  { additionalProperties: false, description: 'Credentials for the scan target (secrets: encrypted at rest, never returned, deleted when the scan ends)' },
);

const ScanOptionsSchema = Type.Object(
  {
    concurrency: Type.Optional(
      Type.Integer({
        minimum: LIMITS.concurrency.min,
        maximum: LIMITS.concurrency.max,
        default: LIMITS.concurrency.default,
        description: 'Parallel requests (security) or pages (functional); default 5',
      }),
    ),
    timeout: Type.Optional(
      Type.Integer({
        minimum: LIMITS.timeout.min,
        maximum: LIMITS.timeout.max,
        default: LIMITS.timeout.default,
        description: 'Seconds per request (per page in functional mode); default 30',
      }),
    ),
    fail_on: Type.Optional(
      StringEnum(['critical', 'high', 'medium', 'low'] as const, {
        description: 'Severity at or above which the scan counts as failing (reported as threshold_reached)',
      }),
    ),
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
      Type.Array(Type.Union([PageUrl, LabelledPage]), {
        maxItems: LIMITS.pages,
        description:
          "Functional: pages to test (absolute URLs on the target, or paths; or `{label, url}` objects whose label is the page's baseline key); default: crawl from url",
        examples: [['/', '/pricing?plan=pro', { label: 'checkout', url: '/checkout/step-1?session=abc' }]],
      }),
    ),
    max_pages: Type.Optional(Type.Integer({ minimum: LIMITS.maxPages.min, maximum: LIMITS.maxPages.max, description: 'Functional: crawl bound; default 10' })),
    diff_threshold_percent: Type.Optional(DiffThresholdPercent('Functional: percent of changed pixels above which a diff is reported; default 0.5')),
    min_region_px: Type.Optional(
      MinRegionPx(
        'Functional: a diff is also reported when one region of changed pixels (changes less than about 8 px apart, text-rendering noise left out) has more changed pixels than this, whatever the percent; default 150 (a changed heading word is about 1 100, text-rendering noise at most about 70)',
      ),
    ),
    ignore_regions: Type.Optional(
      Type.Array(IgnoreRegion, {
        maxItems: LIMITS.ignoreRegions,
        description: 'Functional: areas of the page never compared (beside options.mask, which paints elements over)',
      }),
    ),
    viewport: Type.Optional(
      Type.Object(
        {
          width: Type.Integer({ minimum: LIMITS.viewport.minWidth, maximum: LIMITS.viewport.maxWidth }),
          height: Type.Integer({ minimum: LIMITS.viewport.minHeight, maximum: LIMITS.viewport.maxHeight }),
        },
        { additionalProperties: false, description: 'Functional: default 1280x800' },
      ),
    ),
    mask: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 512 }), {
        maxItems: LIMITS.masks,
        description: 'Functional: CSS selectors painted over before screenshots',
      }),
    ),
    device: Type.Optional(
      StringEnum(['desktop', 'mobile'] as const, {
        description:
          "Functional: the device emulated and its scoring curves, as Lighthouse's presets: desktop (viewport as options.viewport) or mobile (Moto G Power: 412x823 at pixel ratio 1.75, its user agent, touch); default desktop",
      }),
    ),
    throttling: Type.Optional(
      StringEnum(THROTTLING_METHODS, {
        description:
          "Functional: how the performance load is throttled, as Lighthouse's throttlingMethod with the device's preset (desktop: 40 ms RTT, 10 Mbps, CPU 1x; mobile: 150 ms RTT, 1.6 Mbps, CPU 4x). " +
          "simulate (default): one unthrottled load, its trace and network log run through Lighthouse's Lantern simulation; devtools: network and CPU throttled in the browser during the load; none: unthrottled",
        examples: ['simulate'],
      }),
    ),
    budgets: Type.Optional(
      Type.Array(
        Type.Object(
          {
            metric: StringEnum(BUDGET_NAMES, {
              description: `${Object.keys(METRIC_FIELDS).join(', ')} (upper limits: max), or performance or accessibility, the page's score (a lower limit: min)`,
            }),
            max: Type.Optional(Type.Number({ minimum: 0, description: 'Upper limit of a metric (timings in ms, cls)' })),
            min: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'Lower limit of the performance or accessibility score (0-100)' })),
            page: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Page glob (path or URL, * any characters); absent: every page' })),
            level: Type.Optional(
              StringEnum(['error', 'warn'] as const, {
                description:
                  'error (default): a page that misses it fails its performance task (an accessibility budget: its accessibility task); warn: shown only',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        {
          maxItems: 50,
          description:
            "Functional: performance budgets, as Lighthouse CI's assertions: each measured page lists the budgets that apply to it (functional.performance.pages[].budgets, the accessibility budget judged with the page's own accessibility score) and fails its performance task on an error budget it misses (its accessibility task on an accessibility budget)",
          examples: [
            [
              { metric: 'lcp', max: 2500 },
              { metric: 'performance', min: 90, level: 'warn' },
              { metric: 'accessibility', min: 90 },
            ],
          ],
        },
      ),
    ),
    accessibility_profile: Type.Optional(
      StringEnum(['wcag21aa', 'wcag22aa', 'section508'] as const, {
        description: 'Functional: default wcag21aa; wcag22aa and section508 need the team plan or above',
      }),
    ),
    accessibility_best_practices: Type.Optional(
      Type.Boolean({
        description:
          "Functional: also run axe-core's best-practice rules (heading order, landmarks, ...); default false. Rules Lighthouse scores count in the compliance score",
      }),
    ),
    accessibility_rules: Type.Optional(
      Type.Object(
        {
          enable: Type.Optional(
            Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
              maxItems: LIMITS.axeRules,
              description: "axe rule ids run even outside the profile's tags",
            }),
          ),
          disable: Type.Optional(
            Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: LIMITS.axeRules, description: 'axe rule ids never run' }),
          ),
        },
        {
          additionalProperties: false,
          description:
            'Functional: per-rule choice on top of the profile, by axe-core rule id (https://github.com/dequelabs/axe-core/blob/develop/doc/rule-descriptions.md); an unknown id is refused with 422',
          examples: [{ enable: ['heading-order', 'region'], disable: ['color-contrast'] }],
        },
      ),
    ),
    branch: Type.Optional(
      BranchName(
        "Functional: the branch whose visual baselines the scan compares against and writes (e.g. a pull request's branch); a page without a baseline on it is compared against the default branch's; default: default_branch",
      ),
    ),
    default_branch: Type.Optional(BranchName('Functional: the branch other branches fall back to for baselines; default main')),
  },
  { additionalProperties: false },
);

/** The start request's `ci`: what a CI run scanned (docs/ci.md). Branch names also follow git's ref name rules (checked in scan-request.ts). */
export const CiRequestSchema = Type.Object(
  {
    provider: Type.Optional(
      Type.String({ pattern: PROVIDER_PATTERN, description: 'Which CI sent it: `github`, `gitlab`, `cli` (flags only) or another lower-case name' }),
    ),
    repository: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: CI_LIMITS.repositoryLength,
        pattern: REPOSITORY_PATTERN,
        description: 'The repository as the CI names it: `owner/name` (GitHub), `group/project` (GitLab)',
      }),
    ),
    repository_url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: CI_LIMITS.urlLength,
        description:
          "The repository's web address (absolute http or https): SARIF's versionControlProvenance.repositoryUri and the dashboard's commit and pull request links",
      }),
    ),
    branch: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: CI_LIMITS.branchLength,
        description: "The branch scanned (a pull request's head branch), by git's ref name rules; `refs/heads/` is dropped",
        examples: ['feature/new-checkout'],
      }),
    ),
    base_branch: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: CI_LIMITS.branchLength,
        description: "A pull request's target branch: the first scan of a branch is compared against its latest scan",
      }),
    ),
    commit: Type.Optional(
      Type.String({
        pattern: COMMIT_PATTERN,
        description: 'The commit scanned: 7 to 64 hex characters (stored in lower case)',
        examples: ['9fceb02d0ae598e95dc970b74767f19372d61af8'],
      }),
    ),
    pr: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: PR_PATTERN })], {
        description: 'The pull (merge) request: a positive integer, or an id of at most 64 letters, digits and . _ - # ! (returned as text)',
      }),
    ),
    run_url: Type.Optional(
      Type.String({ minLength: 1, maxLength: CI_LIMITS.urlLength, description: "The CI run's (job's) web address (absolute http or https)" }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "What a CI run scanned: repository, branch, commit, pull request and run. The CLI fills it from GitHub Actions' or GitLab CI's environment, or from --branch, --commit and --pr (docs/ci.md)",
    examples: [
      {
        provider: 'github',
        repository: 'acme/shop',
        repository_url: 'https://github.com/acme/shop',
        branch: 'feature/new-checkout',
        base_branch: 'main',
        commit: '9fceb02d0ae598e95dc970b74767f19372d61af8',
        pr: 42,
        run_url: 'https://github.com/acme/shop/actions/runs/123456789',
      },
    ],
  },
);

export const ScanRequestSchema = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: LIMITS.urlLength,
      description: 'Target base URL (absolute http or https); at most 2048 characters once percent-encoded (a non-ASCII character counts as its encoding)',
    }),
    mode: Type.Optional(StringEnum(SCAN_MODES, { description: 'security (default), functional or full' })),
    spec_url: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.urlLength, description: 'OpenAPI/Swagger document URL (absolute http or https)' })),
    spec_content: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'OpenAPI/Swagger document, base64 (JSON or YAML); alternative to spec_url; at most VIGIL_SPEC_MAX_BYTES decoded (5 MiB)',
      }),
    ),
    auth: Type.Optional(TargetAuthSchema),
    options: Type.Optional(ScanOptionsSchema),
    reset_baseline: Type.Optional(Type.Boolean({ description: "Functional modes: replace the visual baseline with this scan's screenshots" })),
    ci: Type.Optional(CiRequestSchema),
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
      {
        url: 'https://api.example.com',
        spec_url: 'https://api.example.com/api/schema/',
        auth: {
          type: 'login',
          username: 'alice',
          password: 'alice-password',
          login: { operation: 'auth_login_create', token_pointer: '/token', send_scheme: 'Token' },
          secondary: {
            type: 'oauth2',
            oauth2_grant_type: 'password',
            oauth2_token_url: 'https://api.example.com/oauth/token',
            username: 'bob@example.com',
            password: 'bob-password',
            oauth2_client_id: 'web',
          },
        },
      },
    ],
  },
);
export type ScanRequest = Static<typeof ScanRequestSchema>;
