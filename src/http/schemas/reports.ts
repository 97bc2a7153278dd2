/** Schemas of the report-format registry route: `GET /scan/{id}/reports/{format}`. */
import { Type } from '@sinclair/typebox';
import { REPORT_FORMAT_IDS, REPORT_FORMATS } from '../../reports/formats/index.js';
import { StringEnum } from './common.js';

export const ReportParams = Type.Object({
  id: Type.String({ minLength: 1, description: 'scan_id (an unknown id of any length is 404)' }),
  format: StringEnum(REPORT_FORMAT_IDS, { description: REPORT_FORMATS.map((f) => `${f.id}: ${f.description}`).join('; ') }),
});
