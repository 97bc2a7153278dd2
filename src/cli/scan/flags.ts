/** The flags of `vigil scan` and `vigil scans wait` (node:util parseArgs tables), and the identity flags' request fields. */
import { CONNECTION_OPTIONS } from '../common.js';

export const GATE_OPTIONS = {
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
export const LOGIN_FIELDS = [
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
export const loginFlag = (field: (typeof LOGIN_FIELDS)[number]) => `login-${field.replace(/_/g, '-')}`;

function loginOptions(prefix: '' | 'auth2-'): Record<string, { type: 'string' }> {
  return Object.fromEntries(LOGIN_FIELDS.map((f) => [`${prefix}${loginFlag(f)}`, { type: 'string' as const }]));
}

export const SCAN_OPTIONS = {
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

export const WAIT_OPTIONS = { ...CONNECTION_OPTIONS, ...GATE_OPTIONS, spec: { type: 'string' } } as const;

/** Request field of each identity flag; the second identity's flags carry the prefix `auth2-`. */
export const AUTH_FIELDS = [
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
export const AUTH_TYPES = ['bearer', 'header', 'basic', 'oauth2', 'login', 'none'] as const;
