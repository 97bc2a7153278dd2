/**
 * CSV export: one row per task, with a header row, then one row per thing a security scan did not test
 * (status `not_tested`): each check run not tested on an operation (or of the whole target), and each
 * operation never reached or skipped, with its `reason_code` and `reason` (not-tested.ts). Check runs
 * that do not apply are no rows. Warnings and the rest of the coverage are in the JSON and HTML
 * exports. An accessibility task's row lists its page's violations and rules
 * needing review in the `accessibility` column, one per line, with their elements' selectors
 * (detailed reports only) and, for a suppressed violation, `[suppressed: reason, by ..., until ...]`.
 * A functional task whose every page finding is suppressed (report model) fills the `suppressed_*`
 * columns as a suppressed security finding does.
 *
 * Format (RFC 4180): UTF-8 without a byte-order mark, CRLF after every record (the last one too),
 * fields separated by commas. A field is enclosed in double quotes when it contains a comma, a
 * double quote, CR or LF; a double quote inside a quoted field is doubled. Absent values are empty
 * fields.
 *
 * Formula injection: task names, evidence and errors carry text taken from the scanned target's
 * responses, and spreadsheet programs run a cell that starts with `=`, `+`, `-` or `@` (and, in some
 * of them, tab or CR followed by one of those) as a formula. Every cell that starts with one of
 * `=`, `+`, `-`, `@`, tab or CR is therefore prefixed with a single quote `'`, which spreadsheets
 * show as text and which a reader of the raw file can strip. The rule applies to every column,
 * header included, and before quoting, so a neutralised cell that also needs quoting reads `"'=..."`.
 */
import type { FunctionalReport, ReportTask, ScanReport } from '../domain/results.js';
import type { Task } from '../domain/scan.js';
import { suppressionText, type SuppressionMark } from '../domain/suppressions.js';
import { notTestedSummary } from './not-tested.js';

/**
 * The columns, in order; the header row is exactly these names. New columns are only ever added at
 * the end, so readers that go by position keep working.
 */
export const CSV_COLUMNS = [
  'scan_id',
  'task_id',
  'name',
  'status',
  'severity',
  'check',
  'owasp',
  'cwe',
  'endpoint',
  'parameter',
  'duration_ms',
  'evidence',
  'error',
  'endpoints',
  'invented_values',
  'accessibility',
  'fingerprint',
  'suppressed_reason',
  'suppressed_by',
  'suppressed_until',
  'reason_code',
  'reason',
  'branch',
  'commit',
  'pull_request',
] as const;

export type CsvColumn = (typeof CSV_COLUMNS)[number];

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** Prefix `'` to a cell a spreadsheet would run as a formula. */
export function neutraliseCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** One field, neutralised then quoted as RFC 4180 requires. */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  const cell = neutraliseCell(String(value));
  return NEEDS_QUOTES.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

type Accessibility = FunctionalReport['accessibility'];

/** The page an accessibility task is about: its name ends with the page's path (or URL). */
function pageOfTask(task: Task, a11y: Accessibility): string | undefined {
  if (task.kind !== 'functional' || !task.name.startsWith('Accessibility')) return undefined;
  const label = task.name.slice(task.name.indexOf(': ') + 2);
  const matches = a11y.pages
    .map((p) => p.page_url)
    .filter((url) => {
      const u = new URL(url);
      return url === label || u.pathname + u.search === label || url.endsWith(label);
    });
  return matches.sort((x, y) => x.length - y.length)[0];
}

/**
 * An accessibility task's findings, one line each: violations, then rules needing review, with
 * their elements' selectors (the first 20 of each rule).
 */
function accessibilityFindings(task: Task, a11y: Accessibility | undefined): string | undefined {
  const page = a11y && pageOfTask(task, a11y);
  if (!a11y || !page) return undefined;
  const line = (
    kind: string,
    r: { rule: string; impact: string | null; wcag: string; elements_affected: number; nodes?: Array<{ target: string }>; suppressed?: SuppressionMark },
  ) =>
    `${kind} ${r.rule} (${r.impact ?? 'no impact'}, ${r.wcag}): ${r.elements_affected} element${r.elements_affected === 1 ? '' : 's'}` +
    (r.nodes?.length ? `: ${r.nodes.map((n) => n.target).join(' | ')}` : '') +
    (r.suppressed ? ` [suppressed: ${suppressionText(r.suppressed)}]` : '');
  const lines = [
    ...a11y.violations.filter((v) => v.page_url === page).map((v) => line('violation', v)),
    ...(a11y.needs_review ?? []).filter((r) => r.page_url === page).map((r) => line('needs review', r)),
  ];
  return lines.length ? lines.join('\n') : undefined;
}

function taskCells(scanId: string, task: ReportTask, a11y?: Accessibility, ci?: ScanReport['ci']): Cells {
  return {
    scan_id: scanId,
    task_id: task.task_id,
    name: task.name,
    status: task.status,
    severity: task.severity,
    check: task.check,
    owasp: task.owasp,
    cwe: task.cwe,
    endpoint: task.endpoint,
    parameter: task.parameter,
    duration_ms: task.duration_ms,
    evidence: task.evidence,
    error: task.error,
    // A finding of the whole target: every operation affected, one per line.
    endpoints: task.endpoints?.length ? task.endpoints.join('\n') : undefined,
    invented_values: task.invented_values ? 'true' : undefined,
    accessibility: accessibilityFindings(task, a11y),
    fingerprint: task.fingerprint,
    // Triage: a suppressed finding fails no gate (its reason, who and until when).
    suppressed_reason: task.suppressed?.reason,
    suppressed_by: task.suppressed?.author ?? undefined,
    suppressed_until: task.suppressed?.expires_at ?? undefined,
    // What a CI run scanned (empty without CI metadata): rows of several runs can be grouped by branch and commit.
    branch: ci?.branch,
    commit: ci?.commit,
    pull_request: ci?.pr,
  };
}

type Cells = Partial<Record<CsvColumn, string | number | undefined>>;

/**
 * The rows of what the scan did not test, after the tasks (status `not_tested`): operations never
 * reached or skipped (no check), then check runs not tested, one per operation (a check of the whole
 * target: one row without an endpoint), each with its reason code and text.
 */
function notTestedRows(report: ScanReport): Cells[] {
  const summary = notTestedSummary(report);
  if (!summary || summary.everything_tested) return [];
  const rows: Cells[] = [];
  for (const group of summary.operations.reasons) {
    const skipped = group.reason_code === 'excluded' || group.reason_code === 'safe_mode';
    for (const endpoint of group.endpoints) {
      rows.push({
        name: skipped ? 'Operation skipped: no check ran on it' : 'Operation never answered 2xx to any identity',
        endpoint,
        reason_code: group.reason_code,
        reason: group.reason,
      });
    }
  }
  for (const group of summary.checks.reasons) {
    for (const c of group.checks) {
      const base = { name: `${c.title}: not tested`, check: c.check, reason_code: group.reason_code, reason: c.reason };
      if (c.endpoints.length === 0) rows.push(base);
      for (const endpoint of c.endpoints) rows.push({ ...base, endpoint });
    }
  }
  return rows.map((r) => ({
    scan_id: report.scan_id,
    status: 'not_tested',
    ...r,
    branch: report.ci?.branch,
    commit: report.ci?.commit,
    pull_request: report.ci?.pr,
  }));
}

export function renderCsvReport(report: ScanReport): string {
  const lines = [CSV_COLUMNS.map(csvField).join(',')];
  for (const task of report.tasks) {
    const cells = taskCells(report.scan_id, task, report.functional?.accessibility, report.ci);
    lines.push(CSV_COLUMNS.map((column) => csvField(cells[column])).join(','));
  }
  for (const cells of notTestedRows(report)) lines.push(CSV_COLUMNS.map((column) => csvField(cells[column])).join(','));
  return lines.map((line) => `${line}\r\n`).join('');
}
