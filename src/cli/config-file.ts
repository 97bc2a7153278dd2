/**
 * The project config file: `--config <file>`, else vigil.config.json, vigil.config.yaml,
 * vigil.config.yml or .vigilrc (JSON) in the working directory. Validated against CONFIG_SCHEMA
 * (docs/vigil.config.schema.json); errors name the field. Secrets are never literal: the target
 * credentials and the webhook secret must be `env:NAME` (any string value may be one), a literal
 * API key is accepted with a warning. `--profile <name>` lays a profile over the top-level keys.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { CONFIG_SCHEMA, type ProjectConfig, SECRET_FIELDS } from './config-schema.js';
import { isObject, listOf, type Unchecked } from './unchecked.js';
import { UsageError } from './usage-error.js';

export type { ProjectConfig } from './config-schema.js';

export const CONFIG_NAMES = ['vigil.config.json', 'vigil.config.yaml', 'vigil.config.yml', '.vigilrc'] as const;

let validator: ReturnType<Ajv['compile']> | undefined;
function validate(value: unknown) {
  validator ??= new Ajv({ allErrors: true, strict: false, useDefaults: false }).compile(CONFIG_SCHEMA);
  return { ok: validator(value) as boolean, errors: validator.errors ?? [] };
}

/** The parameters ajv gives the errors of the keywords described below. */
interface ErrorParams {
  additionalProperty?: string;
  allowedValues?: unknown[];
  pattern?: string;
  missingProperty?: string;
}

/** "auth.token" from "/auth/token"; the error as one readable line. */
function describeError(e: ErrorObject): string {
  const at = e.instancePath.replace(/^\//, '').replace(/\//g, '.') || '(top level)';
  const params: ErrorParams = e.params;
  if (e.keyword === 'additionalProperties') return `${at === '(top level)' ? '' : `${at}.`}${params.additionalProperty}: unknown field`;
  if (e.keyword === 'enum') return `${at}: must be one of ${(params.allowedValues ?? []).join(', ')}`;
  if (e.keyword === 'pattern' && /^env:/.test(String(params.pattern).replace(/^\^/, ''))) return `${at}: must be an env:NAME reference`;
  if (e.keyword === 'required') return `${at === '(top level)' ? '' : `${at}.`}${params.missingProperty}: required`;
  if (e.keyword === 'anyOf')
    return `${at}: ${at.includes('budgets') ? 'give max or min' : 'give at least one of fingerprint, check, operation, parameter, page'}`;
  return `${at}: ${e.message}`;
}

/** The top level and each profile of a file not checked yet, with where each is in the file ("" or "profiles.<name>."). */
function scopesOf(raw: Unchecked): Array<[string, Unchecked]> {
  const profiles = Object.entries(isObject(raw.profiles) ? raw.profiles : {}).filter((entry): entry is [string, Unchecked] => isObject(entry[1]));
  return [['', raw], ...profiles.map(([p, scope]): [string, Unchecked] => [`profiles.${p}.`, scope])];
}

/** Literal secrets refused before anything else, with what to write instead. */
function refuseLiteralSecrets(raw: Unchecked, name: string): void {
  for (const [prefix, scope] of scopesOf(raw)) {
    for (const who of ['auth', 'auth2']) {
      const id = scope[who];
      if (!isObject(id)) continue;
      for (const f of SECRET_FIELDS) {
        const v = id[f];
        if (typeof v === 'string' && !v.startsWith('env:'))
          throw new UsageError(
            `${name}: ${prefix}${who}.${f} holds a literal secret; config files get committed, so write "env:NAME" and set NAME in the environment (or pass --${who === 'auth2' ? 'auth2-' : ''}${f.replace(/_/g, '-')} from a CI secret)`,
          );
      }
    }
    for (const [i, n] of listOf(scope.notifications).entries()) {
      if (isObject(n) && typeof n.secret === 'string' && !n.secret.startsWith('env:'))
        throw new UsageError(`${name}: ${prefix}notifications.${i}.secret holds a literal secret; write "env:NAME"`);
    }
  }
}

/** Replaces every "env:NAME" string with the variable's value; an unset variable is an error naming the field. */
function resolveEnv(value: unknown, env: NodeJS.ProcessEnv, path: string, name: string, strict: boolean): unknown {
  if (typeof value === 'string') {
    const m = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(value);
    if (!m) return value;
    const v = env[m[1]!];
    if (v !== undefined && v !== '') return v;
    // The server URL and key have other sources (flags, VIGIL_URL, VIGIL_API_KEY): unset is not an error here.
    if (!strict || path === 'url' || path === 'api_key') return undefined;
    throw new UsageError(`${name}: ${path} refers to ${m[1]}, which is not set in the environment`);
  }
  if (Array.isArray(value)) return value.map((v, i) => resolveEnv(v, env, `${path}.${i}`, name, strict));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .map(([k, v]) => [k, resolveEnv(v, env, path ? `${path}.${k}` : k, name, strict)])
        .filter(([, v]) => v !== undefined),
    );
  return value;
}

export interface LoadedConfig {
  /** The file read (relative name), or null when there is none. */
  file: string | null;
  config: ProjectConfig;
  warnings: string[];
}

function findConfig(cwd: string, explicit?: string): string | null {
  if (explicit) {
    if (!existsSync(explicit)) throw new UsageError(`--config: "${explicit}" does not exist`);
    return explicit;
  }
  const found = CONFIG_NAMES.map((n) => join(cwd, n)).filter((p) => existsSync(p));
  const main = found.filter((p) => basename(p) !== '.vigilrc');
  if (main.length > 1) throw new UsageError(`both ${main.map((p) => basename(p)).join(' and ')} exist: keep one (or pick one with --config)`);
  return found[0] ?? null;
}

/** Reads, checks and resolves the config file; `profile` is laid over the top level. */
export function loadProjectConfig(
  opts: {
    cwd?: string;
    file?: string;
    profile?: string;
    env?: NodeJS.ProcessEnv /** Unset env:NAME references are errors (vigil scan); else they are left out. */;
    strict?: boolean;
  } = {},
): LoadedConfig {
  const cwd = opts.cwd ?? process.cwd();
  const env = opts.env ?? process.env;
  const path = findConfig(cwd, opts.file);
  if (!path) {
    if (opts.profile) throw new UsageError(`--profile ${opts.profile}: there is no config file (${CONFIG_NAMES.slice(0, 2).join(', ')}) to read profiles from`);
    return { file: null, config: {}, warnings: [] };
  }
  const name = opts.file ?? basename(path);
  let raw: unknown;
  try {
    const text = readFileSync(path, 'utf8');
    raw = /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${name}: ${(error as Error).message.split('\n')[0]}`);
  }
  if (raw === null || raw === undefined) raw = {};
  if (!isObject(raw)) throw new UsageError(`${name}: expected an object of settings`);
  // YAML reads an unquoted 2026-12-31 as a date: the schema wants the text.
  for (const [, scope] of scopesOf(raw)) {
    for (const s of listOf(scope.suppressions)) if (isObject(s) && s.until instanceof Date) s.until = s.until.toISOString().slice(0, 10);
  }
  refuseLiteralSecrets(raw, name);
  const { ok, errors } = validate(raw);
  if (!ok) throw new UsageError(`${name}: ${[...new Set(errors.map(describeError))].slice(0, 5).join('; ')}`);
  const warnings: string[] = [];
  const cfg = raw as ProjectConfig;
  if (typeof cfg.api_key === 'string' && !cfg.api_key.startsWith('env:'))
    warnings.push(
      `${name}: api_key is a literal key; prefer "api_key: env:VIGIL_API_KEY" (or only the VIGIL_API_KEY variable) so the key stays out of the repository`,
    );
  let merged: ProjectConfig = { ...cfg };
  delete merged.profiles;
  if (opts.profile) {
    const profile = cfg.profiles?.[opts.profile];
    if (!profile)
      throw new UsageError(`--profile ${opts.profile}: no such profile in ${name} (${Object.keys(cfg.profiles ?? {}).join(', ') || 'none defined'})`);
    merged = { ...merged, ...profile, ...(merged.thresholds || profile.thresholds ? { thresholds: { ...merged.thresholds, ...profile.thresholds } } : {}) };
  }
  return { file: name, config: resolveEnv(merged, env, '', name, opts.strict ?? false) as ProjectConfig, warnings };
}
