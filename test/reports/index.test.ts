import { describe, expect, it } from 'vitest';
import { EXPORT_FORMATS, isExportFormat, REPORT_FORMATS, reportFilename, reportFormat } from '../../src/reports/index.js';
import type { ReportModel } from '../../src/reports/model.js';
import { notTestedSummary } from '../../src/reports/not-tested.js';
import { resultsBodyOf } from '../../src/reports/results-body.js';
import type { ScanReport } from '../../src/domain/results.js';
import { failedReport, fullReport, securityReport } from './fixtures.js';
import { parseCsv } from './parse.js';

/** A fixture report as the model the formats render (how far the scan got and the functional summaries). */
function model(report: ScanReport): ReportModel {
  return {
    ...report,
    progress_percent: report.status === 'completed' ? 100 : 40,
    functional_summary: {
      visual_regression: { comparisons: 0, diffs_detected: 0, diff_threshold_percent: 0.1 },
      accessibility: { pages_scanned: 0, violations: 0, compliance_score: null },
      performance: { pages_tested: 0, performance_score: null },
      warnings: [],
    },
  };
}

describe('the report-format registry', () => {
  it('keeps the contract export formats exactly html, json and csv, and registers sarif and junit beside them', () => {
    expect([...EXPORT_FORMATS]).toEqual(['html', 'json', 'csv']);
    expect(isExportFormat('csv')).toBe(true);
    expect(isExportFormat('sarif')).toBe(false);
    expect(isExportFormat(undefined)).toBe(false);
    expect(REPORT_FORMATS.map((f) => [f.id, f.extension, f.contentType])).toEqual([
      ['html', 'html', 'text/html; charset=utf-8'],
      ['json', 'json', 'application/json; charset=utf-8'],
      ['csv', 'csv', 'text/csv; charset=utf-8'],
      ['sarif', 'sarif', 'application/sarif+json'],
      ['junit', 'xml', 'application/xml; charset=utf-8'],
    ]);
    expect(reportFormat('pdf')).toBeUndefined();
    // Only SARIF refuses a scan that did not complete (it would read as "no findings").
    expect(REPORT_FORMATS.filter((f) => f.completedOnly).map((f) => f.id)).toEqual(['sarif']);
  });

  it('JSON is the results body, pretty-printed, and round-trips', () => {
    for (const report of [securityReport(), fullReport(), failedReport()]) {
      const body = reportFormat('json')!.render(model(report));
      expect(body).toBe(JSON.stringify(resultsBodyOf(model(report)), null, 2));
      expect(JSON.parse(body)).toMatchObject({ scan_id: report.scan_id, status: report.status, tasks: report.tasks });
    }
  });

  it('CSV, HTML, SARIF and JUnit render the same model', () => {
    const report = fullReport();
    const csv = parseCsv(reportFormat('csv')!.render(model(report)));
    // The header, a row per task, then a not_tested row per operation never reached or skipped and per check run not tested.
    const summary = notTestedSummary(model(report))!;
    const untested =
      summary.operations.reasons.reduce((n, r) => n + r.endpoints.length, 0) +
      summary.checks.reasons.reduce((n, r) => n + r.checks.reduce((m, c) => m + Math.max(c.endpoints.length, 1), 0), 0);
    expect(untested).toBeGreaterThan(0);
    expect(csv).toHaveLength(report.tasks.length + 1 + untested);
    expect(reportFormat('html')!.render(model(report)).startsWith('<!DOCTYPE html>')).toBe(true);
    const sarif = JSON.parse(reportFormat('sarif')!.render(model(report), { toolVersion: '9.9.9' }));
    expect(sarif.runs[0].tool.driver.version).toBe('9.9.9');
    const failedTasks = report.tasks.filter((t) => t.status === 'failed').length;
    expect(sarif.runs[0].results.length).toBeGreaterThanOrEqual(Math.min(1, failedTasks));
    const junit = reportFormat('junit')!.render(model(report));
    expect(junit).toMatch(/^<\?xml/);
    expect(junit).toContain('<testsuites');
    const failed = reportFormat('junit')!.render(model(failedReport()));
    expect(failed).toContain('<error');
  });

  it('file names are header- and file-system-safe whatever the id', () => {
    expect(reportFilename('scn_AbC-123', reportFormat('csv')!)).toBe('vigil-scan-scn_AbC-123.csv');
    expect(reportFilename('../"x"\r\n;y', reportFormat('html')!)).toBe('vigil-scan-____x____y.html');
    expect(reportFilename('scn_1', reportFormat('junit')!)).toBe('vigil-scan-scn_1.xml');
  });
});
