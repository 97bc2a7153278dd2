/** SARIF 2.1.0 for code scanning (reports/sarif.ts); only of a completed scan. */
import type { ReportFormat } from '../format.js';
import { resultsBodyOf } from '../results-body.js';
import { toSarif } from '../sarif.js';
import { toolVersion } from '../tool-version.js';

export const sarifFormat = {
  id: 'sarif' as const,
  contentType: 'application/sarif+json',
  extension: 'sarif',
  description: 'SARIF 2.1.0 for GitHub code scanning (only of a completed scan: an empty SARIF would close the open alerts)',
  completedOnly: true,
  embedsImages: false,
  render: (model, options = {}) => `${JSON.stringify(toSarif(resultsBodyOf(model), options.toolVersion ?? toolVersion(), options), null, 2)}\n`,
} satisfies ReportFormat;
