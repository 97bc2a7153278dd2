/**
 * The JSON schema of the project config file (vigil.config.json / vigil.config.yaml), published as
 * docs/vigil.config.schema.json (a test keeps the two equal). Every `vigil scan` option has a key;
 * flags override the file. Secrets are `env:NAME` references (see SECRET_FIELDS).
 */
import { BUDGET_NAMES } from '../domain/budgets.js';

const envRef = '^env:[A-Za-z_][A-Za-z0-9_]*$';
const str = { type: 'string', minLength: 1 } as const;
const strList = { type: 'array', items: str } as const;
const secret = { type: 'string', pattern: envRef, description: 'A secret: only as an env:NAME reference, read from the environment' } as const;

/** auth.login: how an identity of type login logs in (the start request's auth.login; docs/scans.md). */
const loginProps = {
  url: { ...str, description: 'The login URL: absolute, or a path on the target' },
  method: { enum: ['POST', 'PUT', 'PATCH', 'GET'] },
  operation: { ...str, description: 'Or the spec\'s login operation: operationId or "METHOD /path"' },
  format: { enum: ['json', 'form'] },
  username_field: str,
  password_field: str,
  token_pointer: { type: 'string', pattern: '^(/.*)?$', description: 'JSON pointer to the token in the answer, e.g. /token' },
  token_header: str,
  token_cookie: { ...str, description: "A cookie session: the session cookie's name" },
  send_header: str,
  send_scheme: { type: 'string', description: 'Default Bearer; Token, JWT...; empty for the bare token' },
  csrf_url: str,
  csrf_cookie: str,
  csrf_pointer: { type: 'string', pattern: '^(/.*)?$' },
  csrf_header: str,
} as const;

const identityProps = {
  type: { enum: ['bearer', 'header', 'basic', 'oauth2', 'login', 'none'] },
  token: secret,
  header_name: str,
  header_value: secret,
  username: str,
  password: secret,
  oauth2_token_url: str,
  oauth2_grant_type: { enum: ['client_credentials', 'password'] },
  oauth2_client_id: str,
  oauth2_client_secret: secret,
  oauth2_scope: str,
  login: {
    type: 'object',
    additionalProperties: false,
    properties: loginProps,
    description: 'type login: how the identity logs in with username and password',
  },
} as const;

const budget = {
  type: 'object',
  additionalProperties: false,
  required: ['metric'],
  properties: {
    metric: { enum: [...BUDGET_NAMES], description: 'Timings in ms and cls: give max; scores (0-100): give min' },
    max: { type: 'number' },
    min: { type: 'number' },
    page: { ...str, description: 'Page glob (path or URL; * any characters); absent: every page' },
    level: { enum: ['error', 'warn'], default: 'error' },
  },
  anyOf: [{ required: ['max'] }, { required: ['min'] }],
} as const;

const suppression = {
  type: 'object',
  additionalProperties: false,
  required: ['reason'],
  properties: {
    fingerprint: str,
    check: str,
    operation: { ...str, description: 'METHOD /path/template' },
    parameter: str,
    page: str,
    reason: str,
    until: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'Last day the suppression holds (YYYY-MM-DD)' },
  },
  anyOf: [{ required: ['fingerprint'] }, { required: ['check'] }, { required: ['operation'] }, { required: ['parameter'] }, { required: ['page'] }],
} as const;

const notification = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'url'],
  properties: {
    kind: { enum: ['slack', 'teams', 'webhook'] },
    url: { ...str, description: 'The channel URL, or env:NAME (webhook URLs are often secret)' },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    secret: { ...secret, description: 'HMAC key for X-Vigil-Signature (webhook): env:NAME' },
  },
} as const;

/** Scan options: what a profile may set too. */
const scanProps = {
  target: { ...str, description: 'The scan target (the URL argument of vigil scan)' },
  mode: { enum: ['security', 'functional', 'full'] },
  spec: { ...str, description: 'OpenAPI document: URL or local file' },
  auth: { type: 'object', additionalProperties: false, properties: identityProps },
  auth2: {
    type: 'object',
    additionalProperties: false,
    properties: identityProps,
    description: 'Second identity (another ordinary user) for BOLA/BFLA checks',
  },
  safe_mode: { type: 'boolean' },
  concurrency: { type: 'integer', minimum: 1 },
  timeout: { type: 'integer', minimum: 1, description: 'Seconds per request or page' },
  pages: strList,
  max_pages: { type: 'integer', minimum: 1 },
  excludes: strList,
  masks: strList,
  viewport: { type: 'string', pattern: '^\\d+x\\d+$' },
  device: { enum: ['desktop', 'mobile'] },
  throttling: { enum: ['simulate', 'devtools', 'none'], description: 'Functional: performance throttling (default simulate)' },
  a11y_profile: { enum: ['wcag21aa', 'wcag22aa', 'section508'] },
  thresholds: {
    type: 'object',
    additionalProperties: false,
    properties: {
      fail_on: { enum: ['critical', 'high', 'medium', 'low', 'info', 'none'], default: 'high' },
      fail_on_a11y: { enum: ['minor', 'moderate', 'serious', 'critical', 'none'], default: 'serious' },
      fail_on_visual: { type: 'boolean', default: true },
      diff_percent: { type: 'number', minimum: 0, maximum: 100 },
    },
  },
  budgets: { type: 'array', items: budget },
  outputs: strList,
  notifications: { type: 'array', items: notification },
  suppressions: { type: 'array', items: suppression },
  new_only: { type: 'boolean' },
  baseline: { ...str, description: 'scan id or results JSON file' },
  poll_interval: { type: 'number', exclusiveMinimum: 0 },
  read_ci_env: {
    type: 'boolean',
    default: true,
    description: "Read the branch, commit and pull request from GitHub Actions' or GitLab CI's environment (false: as --no-ci)",
  },
} as const;

export const CONFIG_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://vigil.dev/schemas/vigil.config.schema.json',
  title: 'Vigil project configuration (vigil.config.json / vigil.config.yaml)',
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    url: { ...str, description: 'Vigil server URL' },
    api_key: { ...str, description: 'API key: prefer env:NAME (a literal key is accepted with a warning)' },
    ...scanProps,
    profiles: {
      type: 'object',
      description: 'Named option sets, selected with --profile <name>; they override the keys above',
      additionalProperties: { type: 'object', additionalProperties: false, properties: scanProps },
    },
  },
} as const;

/** Paths (in profile-free form) whose value must be an env:NAME reference. */
export const SECRET_FIELDS = ['token', 'header_value', 'password', 'oauth2_client_secret'] as const;

/**
 * The value a JSON schema of this file accepts, as a TypeScript type (the subset the schema uses: enum,
 * string, number, integer, boolean, array, object with properties and required keys, or a map).
 */
export type FromSchema<S> = S extends { enum: readonly (infer E)[] }
  ? E
  : S extends { type: 'string' }
    ? string
    : S extends { type: 'number' | 'integer' }
      ? number
      : S extends { type: 'boolean' }
        ? boolean
        : S extends { type: 'array'; items: infer I }
          ? FromSchema<I>[]
          : S extends { properties: infer P }
            ? ObjectFromSchema<P, S extends { required: readonly (infer R)[] } ? R : never>
            : S extends { additionalProperties: infer A }
              ? Record<string, FromSchema<A>>
              : unknown;

type ObjectFromSchema<P, Required> = { -readonly [K in keyof P as K extends Required ? K : never]: FromSchema<P[K]> } & {
  -readonly [K in keyof P as K extends Required ? never : K]?: FromSchema<P[K]>;
};

/** A project config file's settings, as CONFIG_SCHEMA accepts them (after env:NAME references are resolved, the same shape). */
export type ProjectConfig = FromSchema<typeof CONFIG_SCHEMA>;
/** The scan options of the file's top level and of each profile. */
export type ScanConfig = FromSchema<{ properties: typeof scanProps }>;
