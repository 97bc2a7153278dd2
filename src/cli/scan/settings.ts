/** The settings of a run (`vigil scan`, `vigil scans wait`) from the flag values and the project config file. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkBudget, parseBudgetFlag, type Budget } from '../budgets.js';
import { clientFrom } from '../common.js';
import { loadProjectConfig, type ProjectConfig } from '../config-file.js';
import { FAIL_ON, FAIL_ON_A11Y } from '../gate.js';
import { colorEnabled } from '../render.js';
import { checkSuppressions, loadSuppressionFile } from '../suppressions.js';
import { UsageError } from '../usage-error.js';
import { notifySettings } from './notify.js';
import { formatFor } from './report-formats.js';
import type { RunSettings } from './run-settings.js';
import { list, oneOf, seconds, str, type Values } from './values.js';

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
  const fileBudgets: Budget[] = (cfg.budgets ?? []).map((b, i) => checkBudget({ ...b, level: b.level ?? 'error' }, `budgets.${i}`));
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

export function followSettings(v: Values, cfg: ProjectConfig, cwd: string, loaded: ProjectConfig): Omit<RunSettings, 'specFile' | 'specLabel' | 'target'> {
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

export function loadConfigFor(flags: Values) {
  const loaded = loadProjectConfig({ file: str(flags, 'config'), profile: str(flags, 'profile'), strict: true });
  for (const w of loaded.warnings) process.stderr.write(`warning: ${w}\n`);
  return loaded;
}
