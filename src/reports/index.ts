/**
 * Scan report exports (`GET /scan/{id}/export?format=html|json|csv`): pure functions from a
 * ScanReport to a file body, its content type and a download file name. See docs/exports.md.
 */
import type { ScanReport } from '../domain/results.js';
import { renderCsvReport } from './csv.js';
import { renderHtmlReport } from './html.js';

export { CSV_COLUMNS, renderCsvReport } from './csv.js';
export { HTML_CSP, renderHtmlReport } from './html.js';

export const EXPORT_FORMATS = ['html', 'json', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface RenderedReport {
  body: string;
  contentType: string;
  filename: string;
}

const CONTENT_TYPES: Record<ExportFormat, string> = {
  html: 'text/html; charset=utf-8',
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && (EXPORT_FORMATS as readonly string[]).includes(value);
}

/**
 * `vigil-scan-<scan_id>.<ext>`. Scan ids are `[A-Za-z0-9_-]`; anything else is replaced by `_` so
 * the name is always safe inside a quoted Content-Disposition header and on any file system.
 */
export function exportFilename(scanId: string, format: ExportFormat): string {
  return `vigil-scan-${scanId.replace(/[^A-Za-z0-9_-]/g, '_')}.${format}`;
}

/** The JSON export: the scan's results body, pretty-printed. */
export function renderJsonExport(scanId: string, resultsBody: unknown): RenderedReport {
  return { body: JSON.stringify(resultsBody, null, 2), contentType: CONTENT_TYPES.json, filename: exportFilename(scanId, 'json') };
}

export function renderReport(report: ScanReport, format: ExportFormat): RenderedReport {
  let body: string;
  switch (format) {
    case 'html':
      body = renderHtmlReport(report);
      break;
    case 'csv':
      body = renderCsvReport(report);
      break;
    case 'json':
      body = JSON.stringify(report, null, 2);
      break;
    default: {
      const unknown: never = format;
      throw new Error(`Unknown export format: ${String(unknown)}`);
    }
  }
  return { body, contentType: CONTENT_TYPES[format], filename: exportFilename(report.scan_id, format) };
}
