import { describe, expect, it } from 'vitest';
import { EXPORT_FORMATS, exportFilename, isExportFormat, renderReport } from '../../src/reports/index.js';
import { failedReport, fullReport, securityReport } from './fixtures.js';
import { parseCsv } from './parse.js';

describe('renderReport', () => {
  it('offers html, json and csv', () => {
    expect([...EXPORT_FORMATS]).toEqual(['html', 'json', 'csv']);
    expect(isExportFormat('csv')).toBe(true);
    expect(isExportFormat('pdf')).toBe(false);
    expect(isExportFormat(undefined)).toBe(false);
  });

  it('JSON is the report, pretty-printed, and round-trips', () => {
    for (const report of [securityReport(), fullReport(), failedReport()]) {
      const file = renderReport(report, 'json');
      expect(file.contentType).toBe('application/json; charset=utf-8');
      expect(file.filename).toBe(`vigil-scan-${report.scan_id}.json`);
      expect(file.body).toBe(JSON.stringify(report, null, 2));
      expect(JSON.parse(file.body)).toEqual(report);
    }
  });

  it('CSV and HTML carry their content types and file names', () => {
    const report = fullReport();
    const csv = renderReport(report, 'csv');
    expect(csv.contentType).toBe('text/csv; charset=utf-8');
    expect(csv.filename).toBe(`vigil-scan-${report.scan_id}.csv`);
    expect(parseCsv(csv.body)).toHaveLength(report.tasks.length + 1);
    const html = renderReport(report, 'html');
    expect(html.contentType).toBe('text/html; charset=utf-8');
    expect(html.filename).toBe(`vigil-scan-${report.scan_id}.html`);
    expect(html.body.startsWith('<!DOCTYPE html>')).toBe(true);
  });

  it('file names are header- and file-system-safe whatever the id', () => {
    expect(exportFilename('scn_AbC-123', 'csv')).toBe('vigil-scan-scn_AbC-123.csv');
    expect(exportFilename('../"x"\r\n;y', 'html')).toBe('vigil-scan-____x____y.html');
  });
});
