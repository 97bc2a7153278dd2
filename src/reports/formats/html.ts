/** The self-contained HTML report (reports/html.ts): screenshots embedded, renders offline. */
import type { ReportFormat } from '../format.js';
import { renderHtmlReport } from '../html.js';

export const htmlFormat = {
  id: 'html' as const,
  contentType: 'text/html; charset=utf-8',
  extension: 'html',
  description: 'a self-contained HTML report that renders offline (screenshots embedded)',
  completedOnly: false,
  embedsImages: true,
  render: (model) => renderHtmlReport(model),
} satisfies ReportFormat;
