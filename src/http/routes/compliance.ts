/** GET /scan/{id}/compliance: OWASP API Top 10 2023, PCI DSS 4.0 req. 6, SOC 2 reports of a finished security/full scan. */
import type { FastifyInstance } from 'fastify';
import { complianceHtml, complianceReport } from '../../reports/compliance/index.js';
import { buildReportModel } from '../../reports/model.js';
import { ApiError } from '../errors.js';
import { AUTHENTICATED_ERRORS, RATE_LIMIT_HEADERS, errorResponses } from '../schemas/common.js';
import { ComplianceQuery, ComplianceReportSchema } from '../schemas/compliance.js';
import { ScanIdParams } from '../schemas/scans.js';
import type { TypeBoxTypeProvider } from '../schemas/type-provider.js';
import type { Services } from '../services.js';
import { ownScan } from '../route-context.js';

export async function complianceRoutes(fastify: FastifyInstance, services: Services): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/scan/:id/compliance',
    {
      schema: {
        tags: ['scans'],
        summary: 'Compliance report of a finished security or full scan',
        description:
          'Per control: status (pass, fail, not_tested), checks run, findings and a 0-100 score (100 minus 50/30/15/5 per critical/high/medium/low finding); ' +
          'the report score is the mean of the tested controls. Reading it sends nothing: `compliance_report_ready` went out once, when the scan completed. ' +
          'HTML is self-contained.',
        params: ScanIdParams,
        querystring: ComplianceQuery,
        response: {
          200: {
            description: 'JSON report (or text/html with format=html)',
            headers: RATE_LIMIT_HEADERS,
            content: {
              'application/json': {
                schema: {
                  ...ComplianceReportSchema,
                  examples: [
                    {
                      framework: 'owasp-api-2023',
                      framework_name: 'OWASP API Security Top 10 (2023)',
                      scan_id: 'scn_Vq3b9xk2Lm0aP1cD',
                      target: 'https://api.example.com',
                      generated_at: '2026-11-22T10:00:12.000Z',
                      score: 85,
                      coverage: { controls: 10, tested: 6 },
                      controls: [
                        {
                          id: 'API1:2023',
                          title: 'Broken Object Level Authorization',
                          status: 'fail',
                          checks_run: 4,
                          score: 70,
                          findings: [
                            {
                              id: 'bola-1',
                              title: 'Object of another user readable',
                              severity: 'high',
                              endpoint: 'GET /orders/{id}',
                              parameter: 'id',
                              cwe: 'CWE-639',
                              owasp: 'API1:2023',
                            },
                          ],
                        },
                      ],
                      disclaimer: '...',
                    },
                  ],
                },
              },
              'text/html': { schema: { type: 'string', contentMediaType: 'text/html', description: 'Self-contained HTML report' } },
            },
          },
          ...errorResponses({
            ...AUTHENTICATED_ERRORS,
            404: 'No such scan for this tenant',
            409: 'SCAN_NOT_COMPLETE, or NOT_A_SECURITY_SCAN for functional scans',
            422: 'Unknown framework or format',
          }),
        },
      },
    },
    async (request, reply) => {
      const scan = await ownScan(services, request, request.params.id);
      if (scan.mode === 'functional')
        throw new ApiError(409, 'NOT_A_SECURITY_SCAN', `Scan ${scan.id} is a functional scan; compliance reports need a security or full scan`);
      if (scan.status !== 'completed')
        throw new ApiError(409, 'SCAN_NOT_COMPLETE', `Scan ${scan.id} is ${scan.status}; compliance reports need a completed scan`);
      const framework = request.query.framework ?? 'owasp-api-2023';
      const format = request.query.format ?? 'json';
      const report = complianceReport(buildReportModel(scan), framework);
      if (format === 'html') {
        void reply.header('content-type', 'text/html; charset=utf-8').header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
        return complianceHtml(report);
      }
      return report;
    },
  );
}
