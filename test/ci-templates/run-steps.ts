/**
 * Runs the shell steps of the CI templates in examples/ci the way their CI runs them: GitHub
 * Actions `run:` steps with `bash --noprofile --norc -eo pipefail`, in order, stopping at the first
 * that fails (later steps without `if:` are skipped there too); GitLab's `before_script` and
 * `script` lines with `set -eo pipefail`, stopping at the first failing line. `uses:` steps are
 * not run (they are GitHub's own actions); tests check the files they are given exist.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { exitedAndDrained } from '../helpers/process.js';

export interface StepRun {
  name: string;
  script: string;
  code: number | null;
  output: string;
}

/** Runs one script with bash in `cwd`; resolves with its exit code and combined output. */
export function runBash(
  script: string,
  options: { cwd: string; env: Record<string, string>; flags: string[] },
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [...options.flags, '-c', script], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    void exitedAndDrained(child).then((code) => resolve({ code, output }));
  });
}

export function readTemplate(root: string, file: string): any {
  return parse(readFileSync(join(root, file), 'utf8'));
}

/**
 * Environment of a template's variables: its own values, except those CI fills in (a GitHub
 * `${{ ... }}` expression, or a GitLab project variable) which come from `provided`. A value the
 * template leaves to CI that `provided` does not give fails: the test must know every input.
 */
export function templateEnv(declared: Record<string, unknown>, provided: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(declared ?? {})) {
    const text = String(value);
    if (name in provided) env[name] = provided[name]!;
    else if (text.includes('${{')) throw new Error(`${name} comes from CI (${text}): give it a value in the test`);
    else env[name] = text;
  }
  return { ...env, ...provided };
}

export interface GithubStep {
  name?: string;
  id?: string;
  if?: string;
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
}

/** The `run:` steps of a GitHub job in order, until the first failing one, as GitHub does. */
export async function runGithubJob(
  job: { env?: Record<string, unknown>; steps: GithubStep[] },
  workflowEnv: Record<string, unknown> | undefined,
  options: { cwd: string; baseEnv: Record<string, string>; provided: Record<string, string> },
): Promise<StepRun[]> {
  const runs: StepRun[] = [];
  for (const step of job.steps) {
    if (step.run === undefined) continue;
    const env = { ...options.baseEnv, ...templateEnv({ ...workflowEnv, ...job.env, ...step.env }, options.provided) };
    const { code, output } = await runBash(step.run, { cwd: options.cwd, env, flags: ['--noprofile', '--norc', '-eo', 'pipefail'] });
    runs.push({ name: step.name ?? step.run.split('\n')[0]!, script: step.run, code, output });
    if (code !== 0) break;
  }
  return runs;
}

/** A GitLab job's `before_script` then `script` lines, until the first failing one, as the runner does. */
export async function runGitlabJob(
  job: { variables?: Record<string, unknown>; before_script?: string[]; script: string[] },
  options: { cwd: string; baseEnv: Record<string, string>; provided: Record<string, string> },
): Promise<StepRun[]> {
  const env = { ...options.baseEnv, ...templateEnv(job.variables ?? {}, options.provided) };
  const runs: StepRun[] = [];
  for (const line of [...(job.before_script ?? []), ...job.script]) {
    const { code, output } = await runBash(line, { cwd: options.cwd, env, flags: ['--noprofile', '--norc', '-eo', 'pipefail'] });
    runs.push({ name: line.split('\n')[0]!, script: line, code, output });
    if (code !== 0) break;
  }
  return runs;
}
