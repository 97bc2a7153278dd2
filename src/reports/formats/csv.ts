/** The CSV report: one row per task (reports/csv.ts). */
import { renderCsvReport } from '../csv.js';
import type { ReportFormat } from '../format.js';

export const csvFormat = {
  id: 'csv' as const,
  contentType: 'text/csv; charset=utf-8',
  extension: 'csv',
  description: 'one row per task; cells that could start a spreadsheet formula are neutralised',
  completedOnly: false,
  embedsImages: false,
  render: (model) => renderCsvReport(model),
} satisfies ReportFormat;
