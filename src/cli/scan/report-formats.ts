/** The report formats `--output` writes, told from the file's extension or `--format`. */
import { basename, extname } from 'node:path';
import { UsageError } from '../usage-error.js';
import { oneOf } from './values.js';

export const REPORT_FORMATS = ['html', 'json', 'csv', 'sarif', 'junit'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export function formatFor(output: string, format?: string): ReportFormat {
  if (format) return oneOf('format', format === 'xml' ? 'junit' : format, REPORT_FORMATS)!;
  const ext = extname(output).slice(1).toLowerCase();
  const byExt: Record<string, ReportFormat> = { html: 'html', htm: 'html', json: 'json', csv: 'csv', sarif: 'sarif', xml: 'junit', junit: 'junit' };
  const f = byExt[ext];
  if (!f) throw new UsageError(`cannot tell the report format from "${basename(output)}": use .html .json .csv .sarif or .xml, or --format`);
  return f;
}
