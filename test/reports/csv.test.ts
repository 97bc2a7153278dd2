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
  const values = [
    report.scan_id,
    t.task_id,
    t.name,
    t.status,
    t.severity,
    t.check,
    t.owasp,
    t.cwe,
    t.endpoint,
    t.parameter,
    t.duration_ms,
    t.evidence,
    t.error,
    t.endpoints?.join('\n'),
    t.invented_values ? 'true' : undefined,
    ACCESSIBILITY_CELLS[t.task_id],
    t.fingerprint,
    t.suppressed?.reason,
    t.suppressed?.author ?? undefined,
    t.suppressed?.expires_at ?? undefined,
    undefined,
    undefined,
    report.ci?.branch,
    report.ci?.commit,
    report.ci?.pr,
  ];
  return values.map((v) => (v === undefined ? '' : String(v)));
}

describe('CSV export', () => {
  for (const [label, make] of [
    ['security', securityReport],
    ['full', fullReport],
  ] as const) {
    it(`parses back to the ${label} scan's tasks, one row per task after the header`, () => {
      const report = make();
      const rows = parseCsv(renderCsvReport(report));
      expect(rows[0]).toEqual([...CSV_COLUMNS]);
      // The tasks first, in order; then what was not tested (its own test below).
      const status = CSV_COLUMNS.indexOf('status');
      expect(rows.slice(1, report.tasks.length + 1).map((r) => r[status])).not.toContain('not_tested');
      expect(rows.slice(report.tasks.length + 1).map((r) => r[status])).toEqual(rows.slice(report.tasks.length + 1).map(() => 'not_tested'));
      rows.slice(1, report.tasks.length + 1).forEach((row, i) => {
        expect(row).toHaveLength(CSV_COLUMNS.length);
        expect(row.map(unneutralise)).toEqual(expectedRow(report, report.tasks[i]!));
      });
    });
  }

  it('adds what a security scan did not test after the tasks: one not_tested row per operation never reached or skipped and per check run, with its reason code', () => {
    const report = securityReport();
    const security = report.security!;
    security.coverage.checks = [
      {
        check: 'sql-injection',
        title: 'SQL injection',
        ran: 3,
        not_run: [
          {
            reason: 'never authorised: every attempt answered 401/403 and no identity reached the operation',
            reason_code: 'never_authorised',
            count: 2,
            endpoints: ['GET /admin/users', 'DELETE /admin/users/{id}'],
          },
          { reason: 'no string parameter or body field', reason_code: 'not_applicable', count: 1, endpoints: ['GET /health'] },
        ],
      },
      { check: 'jwt', title: 'JWT', ran: 0, not_run: [{ reason: 'no JWT seen', reason_code: 'prerequisite_missing', count: 1, endpoints: [] }] },
    ];
    const rows = parseCsv(renderCsvReport(report));
    const col = (name: (typeof CSV_COLUMNS)[number]) => CSV_COLUMNS.indexOf(name);
    const untested = rows.slice(report.tasks.length + 1);
    for (const row of untested) {
      expect(row).toHaveLength(CSV_COLUMNS.length);
      expect([row[col('scan_id')], row[col('status')], row[col('task_id')], row[col('severity')]]).toEqual([report.scan_id, 'not_tested', '', '']);
    }
    const pick = (row: string[]) => [row[col('name')], row[col('check')], row[col('endpoint')], row[col('reason_code')], row[col('reason')]].map(unneutralise);
    expect(untested.map(pick)).toEqual([
      ['Operation never answered 2xx to any identity', '', 'GET /invoices/{id}', 'not_reached', 'never answered 2xx (answers: 404)'],
      ['Operation never answered 2xx to any identity', '', `GET /echo/${HOSTILE.attribute}`, 'server_error', 'answered only 5xx (500)'],
      ['Operation skipped: no check ran on it', '', 'POST /admin/reset', 'safe_mode', 'skipped: safe mode: destructive'],
      [
        'SQL injection: not tested',
        'sql-injection',
        'GET /admin/users',
        'never_authorised',
        'never authorised: every attempt answered 401/403 and no identity reached the operation',
      ],
      [
        'SQL injection: not tested',
        'sql-injection',
        'DELETE /admin/users/{id}',
        'never_authorised',
        'never authorised: every attempt answered 401/403 and no identity reached the operation',
      ],
      ['JWT: not tested', 'jwt', '', 'prerequisite_missing', 'no JWT seen'],
    ]);
    // A check run that does not apply is no row; a fully tested scan has none.
    expect(untested.some((r) => r[col('endpoint')] === 'GET /health')).toBe(false);
    security.coverage = { ...security.coverage, operations: [], checks: [], operations_2xx: 1, operations_total: 1 };
    security.target_down = undefined;
    expect(parseCsv(renderCsvReport(report))).toHaveLength(report.tasks.length + 1);
  });

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
    const rows = parseCsv(renderCsvReport(report)).slice(1, report.tasks.length + 1);
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
