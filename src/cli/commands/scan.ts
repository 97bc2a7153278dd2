/**
 * `vigil scan [url]`: start a scan, follow it, judge it with the CI gate, print a summary, write
 * reports, notify, exit 0/1/2/3/4/5. `vigil scans wait <id>` follows and judges a scan started earlier.
 * The steps live in ../scan/: flags and settings, the start request, following and judging, reports.
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { ciSummary } from '../../domain/ci.js';
import { ciMetadata } from '../ci-env.js';
import { ApiFailure, exitCodeFor, notVigil } from '../client.js';
import { printApiError, printJson } from '../common.js';
import { configValues, mergeValues } from '../scan/config-values.js';
import { SCAN_EXIT } from '../scan/exit-codes.js';
import { SCAN_OPTIONS, WAIT_OPTIONS } from '../scan/flags.js';
import { followAndJudge } from '../scan/follow-and-judge.js';
import { SCAN_HELP, WAIT_HELP } from '../scan/help.js';
import type { RunSettings } from '../scan/run-settings.js';
import { followSettings, loadConfigFor } from '../scan/settings.js';
import { startBody, type ServerBudgets } from '../scan/start-request.js';
import { startScan, type StartedScan } from '../scan/start-scan.js';
import { str, type Values } from '../scan/values.js';
import { parseCommandArgs, UsageError } from '../usage-error.js';

export async function scanCommand(args: string[]): Promise<number> {
  const { values: flags, positionals } = parseCommandArgs(args, SCAN_OPTIONS, true);
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

  let started: StartedScan;
  try {
    started = await startScan(client, body, specFile, s.patience, log);
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
