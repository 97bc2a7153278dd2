import { describe, expect, it } from 'vitest';
import type { ReportTask, ScanReport } from '../../src/domain/results.js';
import { CSV_COLUMNS, csvField, neutraliseCell, renderCsvReport } from '../../src/reports/csv.js';
import { HOSTILE, failedReport, fullReport, securityReport } from './fixtures.js';
import { parseCsv } from './parse.js';

const FORMULA = /^[=+\-@\t\r]/;

/** What a reader gets back for a cell: the neutralising quote removed. */
function unneutralise(cell: string): string {
  return cell.startsWith("'") && FORMULA.test(cell.slice(1)) ? cell.slice(1) : cell;
}

/** The accessibility column of the fixtures' accessibility tasks: their page's findings. */
const ACCESSIBILITY_CELLS: Record<string, string> = {
  tsk_f3: `violation image-alt (critical, 1.1.1): 2 elements: main > img.product | #chat >>> img[title="${HOSTILE.singleQuote}"]\nviolation region (moderate, best-practice): 1 element`,
};

function expectedRow(report: ScanReport, t: ReportTask): string[] {
  const values = [report.scan_id, t.task_id, t.name, t.status, t.severity, t.check, t.owasp, t.cwe, t.endpoint, t.parameter, t.duration_ms, t.evidence, t.error, t.endpoints?.join('\n'), t.invented_values ? 'true' : undefined, ACCESSIBILITY_CELLS[t.task_id], t.fingerprint, t.suppressed?.reason, t.suppressed?.author ?? undefined, t.suppressed?.expires_at ?? undefined, report.ci?.branch, report.ci?.commit, report.ci?.pr];
  return values.map((v) => (v === undefined ? '' : String(v)));
}

describe('CSV export', () => {
  for (const [label, make] of [['security', securityReport], ['full', fullReport]] as const) {
    it(`parses back to the ${label} scan's tasks, one row per task after the header`, () => {
      const report = make();
      const rows = parseCsv(renderCsvReport(report));
      expect(rows[0]).toEqual([...CSV_COLUMNS]);
      expect(rows).toHaveLength(report.tasks.length + 1);
      rows.slice(1).forEach((row, i) => {
        expect(row).toHaveLength(CSV_COLUMNS.length);
        expect(row.map(unneutralise)).toEqual(expectedRow(report, report.tasks[i]!));
      });
    });
  }

  it('every row names the branch, commit and pull request of a scan with CI metadata (empty without)', () => {
    const ci = { provider: 'github', branch: 'feature/x', commit: '9fceb02d0ae598e95dc970b74767f19372d61af8', pr: '42' };
    const report = { ...securityReport(), ci };
    const rows = parseCsv(renderCsvReport(report)).slice(1);
    for (const row of rows) {
      expect(row[CSV_COLUMNS.indexOf('branch')]).toBe('feature/x');
      expect(row[CSV_COLUMNS.indexOf('commit')]).toBe(ci.commit);
      expect(row[CSV_COLUMNS.indexOf('pull_request')]).toBe('42');
    }
    expect(parseCsv(renderCsvReport(securityReport()))[1]![CSV_COLUMNS.indexOf('branch')]).toBe('');
  });

  it('neutralises every cell a spreadsheet would run as a formula, and only those', () => {
    const report = securityReport();
    const rows = parseCsv(renderCsvReport(report)).slice(1);
    let neutralised = 0;
    rows.forEach((row, i) => {
      const expected = expectedRow(report, report.tasks[i]!);
      row.forEach((cell, c) => {
        expect(FORMULA.test(cell), `row ${i} column ${CSV_COLUMNS[c]} starts like a formula: ${JSON.stringify(cell)}`).toBe(false);
        if (FORMULA.test(expected[c]!)) {
          expect(cell).toBe(`'${expected[c]}`);
          neutralised++;
        } else {
          expect(cell).toBe(expected[c]);
        }
      });
    });
    // The fixture has = + - @ tab and CR starts (name of tsk_06 and evidence of tsk_06..tsk_10).
    expect(neutralised).toBeGreaterThanOrEqual(6);
    const byId = (id: string) => rows.find((r) => r[1] === id)!;
    expect(byId('tsk_06')[2]).toBe('\'=HYPERLINK("https://evil.example","click") formula in name');
    expect(byId('tsk_06')[11]!.startsWith("'=cmd|")).toBe(true);
    expect(byId('tsk_07')[11]!.startsWith("'+per_page")).toBe(true);
    expect(byId('tsk_08')[11]!.startsWith("'-1 rows")).toBe(true);
    expect(byId('tsk_09')[11]!.startsWith("'\tServer")).toBe(true);
    expect(byId('tsk_10')[11]!.startsWith("'\rAccess")).toBe(true);
  });

  it('quotes commas, quotes, CR and LF per RFC 4180 and keeps unicode', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line1\nline2')).toBe('"line1\nline2"');
    expect(csvField('line1\r\nline2')).toBe('"line1\r\nline2"');
    expect(csvField('=1+1')).toBe("'=1+1");
    expect(csvField('=SUM(A1,B1)')).toBe(`"'=SUM(A1,B1)"`);
    expect(csvField('\r\n=1')).toBe(`"'\r\n=1"`);
    expect(csvField(undefined)).toBe('');
    expect(csvField(1234)).toBe('1234');
    expect(csvField('日本語 ✓ 🚨 €')).toBe('日本語 ✓ 🚨 €');
    expect(neutraliseCell('a=1')).toBe('a=1');
    expect(neutraliseCell("'already")).toBe("'already");
    for (const start of ['=', '+', '-', '@', '\t', '\r']) expect(neutraliseCell(`${start}x`)).toBe(`'${start}x`);

    const text = renderCsvReport(securityReport());
    expect(text).toContain('Deprecated API version still served — /v1 ✓ 日本語');
    expect(Buffer.from(text, 'utf8').toString('utf8')).toBe(text);
    expect(text.charCodeAt(0)).not.toBe(0xfeff);
  });

  it('ends every record with CRLF and has no bare line ends outside quoted fields', () => {
    const text = renderCsvReport(securityReport());
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.startsWith(`${CSV_COLUMNS.join(',')}\r\n`)).toBe(true);
    // parseCsv throws on a bare CR or LF outside quotes.
    expect(() => parseCsv(text)).not.toThrow();
  });

  it('a scan with no tasks is just the header row', () => {
    const text = renderCsvReport(failedReport());
    expect(text).toBe(`${CSV_COLUMNS.join(',')}\r\n`);
    expect(parseCsv(text)).toEqual([[...CSV_COLUMNS]]);
  });
});
