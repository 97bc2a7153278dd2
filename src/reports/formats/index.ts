/**
 * The report-format registry: every format a scan can be rendered into, served at
 * `GET /scan/{id}/reports/{format}` and used by the dashboard and the CLI. A new format is one file
 * of this folder and one line of the list.
 */
import type { ReportFormat } from '../format.js';
import { csvFormat } from './csv.js';
import { htmlFormat } from './html.js';
import { jsonFormat } from './json.js';
import { junitFormat } from './junit.js';
import { sarifFormat } from './sarif.js';

export const REPORT_FORMATS = [htmlFormat, jsonFormat, csvFormat, sarifFormat, junitFormat] as const;

export type ReportFormatId = (typeof REPORT_FORMATS)[number]['id'];

export const REPORT_FORMAT_IDS = REPORT_FORMATS.map((f) => f.id) as ReportFormatId[];

export function reportFormat(id: string): ReportFormat | undefined {
  return (REPORT_FORMATS as readonly ReportFormat[]).find((f) => f.id === id);
}

/** `vigil-scan-<scan_id>.<extension>`; anything outside `[A-Za-z0-9_-]` in the id becomes `_`. */
export function reportFilename(scanId: string, format: ReportFormat): string {
  return `vigil-scan-${scanId.replace(/[^A-Za-z0-9_-]/g, '_')}.${format.extension}`;
}
