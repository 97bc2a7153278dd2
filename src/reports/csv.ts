/**
 * CSV export: one row per task, with a header row. Coverage and warnings are not rows: they are in
 * the JSON and HTML exports.
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
import type { ScanReport } from '../domain/results.js';
import type { Task } from '../domain/scan.js';

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

function taskCells(scanId: string, task: Task): Record<CsvColumn, string | number | undefined> {
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
  };
}

export function renderCsvReport(report: ScanReport): string {
  const lines = [CSV_COLUMNS.map(csvField).join(',')];
  for (const task of report.tasks) {
    const cells = taskCells(report.scan_id, task);
    lines.push(CSV_COLUMNS.map((column) => csvField(cells[column])).join(','));
  }
  return lines.map((line) => `${line}\r\n`).join('');
}
