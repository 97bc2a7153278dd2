/**
 * Scan reports. Every format (html, json, csv, sarif, junit) is a pure function from the report model
 * (model.ts) to a file body, registered once in formats/index.ts and served at
 * `GET /scan/{id}/reports/{format}`. `GET /scan/{id}/export` serves the contract's three of them. See docs/exports.md.
 */
export { CSV_COLUMNS, renderCsvReport } from './csv.js';
export { HTML_CSP, renderHtmlReport } from './html.js';
export type { RenderOptions, ReportFormat, SuppressedFinding } from './format.js';
export { REPORT_FORMAT_IDS, REPORT_FORMATS, reportFilename, reportFormat, type ReportFormatId } from './formats/index.js';

/** The contract's formats of `GET /scan/{id}/export` (any other value is 422). */
export const EXPORT_FORMATS = ['html', 'json', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && (EXPORT_FORMATS as readonly string[]).includes(value);
}
