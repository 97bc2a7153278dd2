/** The JSON report: exactly the results body of GET /scan/{id}/results, pretty-printed. */
import type { ReportFormat } from '../format.js';
import { resultsBodyOf } from '../results-body.js';

export const jsonFormat = {
  id: 'json' as const,
  contentType: 'application/json; charset=utf-8',
  extension: 'json',
  description: 'the results body (what GET /scan/{id}/results returns)',
  completedOnly: false,
  embedsImages: false,
  render: (model) => JSON.stringify(resultsBodyOf(model), null, 2),
} satisfies ReportFormat;
