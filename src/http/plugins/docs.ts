import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { describeOperation, hoistNamedSchemas, operationKey } from '../schemas/openapi-document.js';

export const API_PREFIX = '/api/v1';

const TAGS = [
  { name: 'scans', description: 'Start, follow, list, cancel and export scans' },
  { name: 'functional', description: 'Functional results and the visual regression, accessibility and performance sub-reports' },
  { name: 'usage', description: 'Usage against plan quotas, alerts and history' },
  { name: 'billing', description: 'Checkout, portal, status, provider webhooks, tenant provisioning and keys' },
  { name: 'security', description: 'Security-only scans' },
  { name: 'llm', description: 'Language-model assisted operations' },
  { name: 'health', description: 'Service health' },
  { name: 'notifications', description: 'Outbound notification channels (chat, team-chat and generic HTTPS webhooks)' },
  { name: 'cli', description: 'The vigil CLI package, served by this server with its checksum' },
  { name: 'metrics', description: 'Prometheus metrics of one process, at /metrics when VIGIL_METRICS_TOKEN is set (docs/operators.md)' },
  { name: 'sso', description: 'Enterprise sign-in (OpenID Connect, SAML 2.0), dashboard sessions, members and roles, audit log' },
  { name: 'triage', description: 'Suppressions: findings a team accepted, with reason, author and expiry, applied to every report and gate' },
];

/** OpenAPI 3.1 generated from the route schemas, Swagger UI and Redoc, all served offline. */
export async function registerDocs(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Vigil API',
        version,
        description:
          'Security and functional scanning, usage metering and billing. Authenticate with `X-API-Key: svc_pk_...`. ' +
          'Every error body is `{error, message, status}` plus the fields its code documents.',
      },
      servers: [{ url: '/' }],
      tags: TAGS,
      components: {
        securitySchemes: {
          ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Tenant API key, prefix svc_pk_' },
          SyncKey: { type: 'apiKey', in: 'header', name: 'X-Sync-Key', description: 'Server-side sync secret (SERVICE_APP_SYNC_KEY)' },
          ProviderSignature: { type: 'apiKey', in: 'header', name: 'Provider-Signature', description: 'Payment provider webhook signature' },
          MetricsToken: { type: 'http', scheme: 'bearer', description: "GET /metrics: the operator's VIGIL_METRICS_TOKEN" },
        },
      },
      security: [{ ApiKey: [] }],
    },
    // Operation ids, rate-limit and Retry-After headers, 413/414/415, shared schemas: see openapi-document.ts.
    transform: ({ schema, url, route }) => {
      if (!schema || schema.hide) return { schema, url };
      const method = Array.isArray(route.method) ? route.method[0]! : route.method;
      const isPublic = Boolean((route.config as { public?: boolean } | undefined)?.public);
      return { schema: describeOperation(schema as Record<string, unknown>, operationKey(method, url, API_PREFIX), isPublic) as typeof schema, url };
    },
    transformObject: (documentObject) => hoistNamedSchemas((documentObject as { openapiObject: Record<string, unknown> }).openapiObject) as never,
  });

  await app.register(swaggerUi, { routePrefix: `${API_PREFIX}/docs`, uiConfig: { deepLinking: true }, staticCSP: true });

  app.get(`${API_PREFIX}/openapi.json`, { config: { public: true }, schema: { hide: true } }, async () => app.swagger());

  const require = createRequire(import.meta.url);
  const redocBundle = readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'));
  app.get(`${API_PREFIX}/redoc/redoc.standalone.js`, { config: { public: true }, schema: { hide: true } }, async (_req, reply) =>
    reply.type('application/javascript').header('Cache-Control', 'public, max-age=86400').send(redocBundle),
  );
  app.get(`${API_PREFIX}/redoc`, { config: { public: true }, schema: { hide: true } }, async (_req, reply) =>
    reply.type('text/html').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Vigil API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="${API_PREFIX}/openapi.json"></redoc>
<script src="${API_PREFIX}/redoc/redoc.standalone.js"></script></body></html>`),
  );
}
