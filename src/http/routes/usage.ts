import type { FastifyInstance } from 'fastify';
import { tenantOf } from '../plugins/auth.js';
import { AUTHENTICATED_ERRORS, RATE_LIMIT_HEADERS, errorResponses, pageBody } from '../schemas/common.js';
import type { TypeBoxTypeProvider } from '../schemas/type-provider.js';
import { AlertList, AlertsQuery, HistoryList, HistoryQuery, UsageBody } from '../schemas/usage.js';
import type { Services } from '../services.js';

export async function usageRoutes(fastify: FastifyInstance, services: Services): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/usage',
    {
      config: { latestPeriod: true },
      schema: {
        tags: ['usage'],
        summary: 'Usage in the current period',
        description: 'A 200 also confirms the key is valid. Cancelled and failed scans stay counted.',
        response: { 200: { ...UsageBody, headers: RATE_LIMIT_HEADERS }, ...errorResponses(AUTHENTICATED_ERRORS) },
      },
    },
    async (request) => {
      const tenant = tenantOf(request);
      // Authenticated by key, the latest period came with the key; by a session cookie, it is read now.
      if (request.latestPeriod) return services.usage.viewAfter(request.latestPeriod.period, tenant.id, tenant.plan);
      return services.usage.view(tenant.id, tenant.plan);
    },
  );

  app.get(
    '/usage/alerts',
    {
      schema: {
        tags: ['usage'],
        summary: 'Usage alerts, most recent first',
        description:
          'Each alert type fires at most once per period and quota: approaching_limit above 80%, quota_exceeded when a quota is used up, quota_reset when a new period starts.',
        querystring: AlertsQuery,
        response: {
          200: AlertList,
          ...errorResponses({ ...AUTHENTICATED_ERRORS, 422: 'Bad page, per_page or type' }),
        },
      },
    },
    async (request) => {
      const tenant = tenantOf(request);
      const { items, total } = await services.usage.alerts(tenant.id, request.query.type, request.query.page ?? 1, request.query.per_page ?? 20);
      const alerts = items.map((a) => ({
        alert_id: a.id,
        type: a.type,
        quota: a.quota,
        message: a.message,
        scans_used: a.scans_used,
        scans_limit: a.scans_limit,
        period_start: a.period_start,
        triggered_at: a.triggered_at,
      }));
      return pageBody('alerts', alerts, total, request.query);
    },
  );

  app.get(
    '/usage/history',
    {
      schema: {
        tags: ['usage'],
        summary: 'Usage per period, most recent first',
        description: 'One row per past and current period with the counts and limits of the scan quotas and the API-specification quota, and the plan.',
        querystring: HistoryQuery,
        response: {
          200: HistoryList,
          ...errorResponses({ ...AUTHENTICATED_ERRORS, 422: 'Bad page or per_page' }),
        },
      },
    },
    async (request) => {
      const tenant = tenantOf(request);
      const { items, total } = await services.usage.history(tenant.id, tenant.plan, request.query.page ?? 1, request.query.per_page ?? 20);
      const periods = items.map((p) => ({
        period_start: p.period_start,
        period_end: p.period_end,
        current: p.current,
        plan: p.plan,
        functional_scans_used: p.functional_used,
        functional_scans_limit: p.functional_limit,
        security_scans_used: p.security_used,
        security_scans_limit: p.security_limit,
        api_specifications_used: p.specifications_used,
        api_specifications_limit: p.specifications_limit,
      }));
      return pageBody('periods', periods, total, request.query);
    },
  );
}
