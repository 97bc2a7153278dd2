/** Schemas of GET /scan/{id}/compliance. */
import { Type } from '@sinclair/typebox';
import { FRAMEWORKS } from '../../reports/compliance/index.js';
import { StringEnum } from './common.js';

export const ComplianceQuery = Type.Object({
  framework: Type.Optional(
    StringEnum(FRAMEWORKS, { default: 'owasp-api-2023', description: 'owasp-api-2023 (exact), pci-dss-4 or soc2 (best-effort mappings)' }),
  ),
  format: Type.Optional(StringEnum(['json', 'html'] as const, { default: 'json' })),
});

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** The JSON compliance report (format=json). */
export const ComplianceReportSchema = Type.Object(
  {
    framework: StringEnum(FRAMEWORKS),
    framework_name: Type.String(),
    scan_id: Type.String(),
    target: Type.String(),
    generated_at: Type.String({ format: 'date-time' }),
    score: Type.Number({ minimum: 0, maximum: 100, description: "Mean of the tested controls' scores" }),
    coverage: Type.Object({ controls: Type.Integer(), tested: Type.Integer() }, { additionalProperties: true }),
    controls: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          title: Type.String(),
          status: StringEnum(['pass', 'fail', 'not_tested'] as const),
          checks_run: Type.Integer(),
          score: Type.Union([Type.Number(), Type.Null()], { description: '100 minus 50/30/15/5 per critical/high/medium/low finding; null when not tested' }),
          findings: Type.Array(
            Type.Object(
              {
                id: Type.String(),
                title: Type.String(),
                severity: Type.String(),
                endpoint: NullableString,
                parameter: NullableString,
                cwe: NullableString,
                owasp: NullableString,
              },
              { additionalProperties: true },
            ),
          ),
        },
        { additionalProperties: true },
      ),
    ),
    disclaimer: Type.String(),
  },
  { additionalProperties: true, title: 'ComplianceReport' },
);
