/** JUnit XML for CI test reporters (reports/junit.ts). */
import type { ReportFormat } from '../format.js';
import { toJunit } from '../junit.js';
import { resultsBodyOf } from '../results-body.js';

export const junitFormat = {
  id: 'junit' as const,
  contentType: 'application/xml; charset=utf-8',
  extension: 'xml',
  description: 'JUnit XML (Jenkins junit-10.xsd) for CI test reporters; a failed scan is an error testcase',
  completedOnly: false,
  embedsImages: false,
  render: (model, options = {}) => toJunit(resultsBodyOf(model), { ...(options.suppressed ? { suppressed: options.suppressed } : {}) }),
} satisfies ReportFormat;
