/** The project config file as flag values, and flags laid over them. */
import type { ProjectConfig } from '../config-file.js';
import { AUTH_FIELDS, LOGIN_FIELDS, loginFlag } from './flags.js';
import type { Values } from './values.js';

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
