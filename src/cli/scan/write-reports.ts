/** Writes the `--output` reports: SARIF and JUnit built here, HTML, JSON and CSV exported by the server. */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { toJunit } from '../../reports/junit.js';
import { toSarif } from '../../reports/sarif.js';
import { ApiFailure } from '../client.js';
import { getPatiently, type ScanResults } from '../follow.js';
import type { GateResult } from '../gate.js';
import { cliVersion } from '../version.js';
import type { RunSettings } from './run-settings.js';

/** The file's path from the repository root (where SARIF's %SRCROOT% points), else from the cwd. */
function repoPath(file: string): string {
  const abs = resolve(file);
  let dir = dirname(abs);
  for (let i = 0; i < 30; i += 1) {
    if (existsSync(join(dir, '.git'))) return relative(dir, abs).split('\\').join('/');
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return relative(process.cwd(), abs).split('\\').join('/');
}

/** The JSON report with `tasks[].suppressed` (source file) on the findings only the ignore file covers. */
function withFileSuppressions(json: string, suppressed: ReadonlyArray<{ key: string; reason: string; until?: string; source: 'server' | 'file' }>): string {
  const byKey = new Map(suppressed.filter((x) => x.source === 'file').map((x) => [x.key, x]));
  if (byKey.size === 0) return json;
  const body = JSON.parse(json) as { tasks?: Array<Record<string, unknown>> };
  for (const task of body.tasks ?? []) {
    const hit = typeof task.fingerprint === 'string' && !task.suppressed ? byKey.get(task.fingerprint) : undefined;
    if (hit) task.suppressed = { reason: hit.reason, author: null, expires_at: hit.until ?? null, source: 'file' };
  }
  return `${JSON.stringify(body, null, 2)}\n`;
}

export async function writeOutputs(
  s: RunSettings,
  results: ScanResults,
  gate: GateResult,
): Promise<{ written: string[]; failed: Array<{ path: string; error: string }> }> {
  const written: string[] = [];
  const failed: Array<{ path: string; error: string }> = [];
  let specFile: { path: string; text: string } | undefined;
  if (s.specFile) {
    try {
      specFile = { path: repoPath(s.specFile), text: readFileSync(s.specFile, 'utf8') };
    } catch {
      specFile = undefined;
    }
  }
  const suppressed = gate.suppressed.map(({ item, suppression }) => ({
    key: item.key,
    reason: suppression.reason,
    ...(suppression.until ? { until: suppression.until } : {}),
    ...(suppression.author ? { author: suppression.author } : {}),
    source: suppression.origin ?? ('file' as const),
  }));
  for (const out of s.outputs) {
    if (out.format === 'sarif' && results.status !== 'completed') {
      // Code scanning reads a SARIF without results as "no findings" and closes every open alert of the
      // tool on the ref: a scan that did not complete writes none (and removes one left from an earlier run).
      rmSync(out.path, { force: true });
      process.stderr.write(`note: no SARIF written to ${out.path}: the scan ${results.status}; an empty SARIF would close the open alerts in code scanning\n`);
      continue;
    }
    try {
      let content: string;
      if (out.format === 'sarif') {
        // Suppressed findings stay in the SARIF, marked as accepted (code scanning shows them dismissed).
        content = `${JSON.stringify(toSarif(results, cliVersion(), { ...(specFile ? { specFile } : {}), suppressed }), null, 2)}\n`;
      } else if (out.format === 'junit')
        content = toJunit(results, {
          suppressed,
          gate: { failing: gate.failing, below: gate.below, threshold: `--fail-on ${s.failOn}, --fail-on-a11y ${s.failOnA11y}` },
        });
      else content = (await getPatiently(s.client, '/scan/{id}/export', s.patience, { path: { id: results.scan_id }, query: { format: out.format } })).text;
      // The server marks what its suppressions cover; the JSON report also shows what the ignore file covers.
      if (out.format === 'json') content = withFileSuppressions(content, suppressed);
      writeFileSync(out.path, content);
      written.push(out.path);
    } catch (error) {
      const message = error instanceof ApiFailure ? `${error.code}: ${error.message}` : (error as Error).message;
      failed.push({ path: out.path, error: message });
      process.stderr.write(`error OUTPUT_FAILED: could not write ${out.path}: ${message}\n`);
    }
  }
  return { written, failed };
}
