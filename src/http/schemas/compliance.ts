/** Schemas of GET /scan/{id}/compliance. */
import { Type } from '@sinclair/typebox';
import { FRAMEWORKS } from '../../reports/compliance/index.js';
import { StringEnum } from './common.js';

export const ComplianceQuery = Type.Object({
  framework: Type.Optional(StringEnum(FRAMEWORKS, { default: 'owasp-api-2023', description: 'owasp-api-2023 (exact), pci-dss-4 or soc2 (best-effort mappings)' })),
  format: Type.Optional(StringEnum(['json', 'html'] as const, { default: 'json' })),
});
