import { randomUUID } from 'node:crypto';
import type { Bindings, ChildLoggerOptions } from 'pino';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type HookHandlerDoneFunction } from 'fastify';
import { registerErrorHandling, requireObjectBody } from './errors.js';
import { answerUnhandledEvents, clientErrorHandler, frameworkErrors, MAX_HEADER_BYTES, MAX_PARAM_LENGTH, registerEdgeChecks } from './edge-errors.js';
import { authPlugin, routeHooks } from './plugins/auth.js';
import { rateLimitPlugin } from './plugins/rate-limit.js';
import { refuseNonFiniteQuery } from './query-numbers.js';
import { API_PREFIX, registerDocs } from './plugins/docs.js';
import { healthRoutes } from './routes/health.js';
import { tenantRoutes } from './routes/tenants.js';
import { artifactRoutes } from './routes/artifacts.js';
import { functionalRoutes } from './routes/functional.js';
import { scanRoutes } from './routes/scans.js';
import { usageRoutes } from './routes/usage.js';
import { llmRoutes } from './routes/llm.js';
import { billingRoutes } from './routes/billing.js';
import { notificationRoutes } from './routes/notifications.js';
import { complianceRoutes } from './routes/compliance.js';
import { liveRoute } from './routes/live.js';
import { baselineRoutes } from './routes/baselines.js';
import { dashboardRoutes } from './routes/dashboard.js';
import type { Services } from './services.js';

export interface ServedRoute {
  method: string;
  url: string;
  documented: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route this server serves, for the docs test and operators. */
    routeTable: ServedRoute[];
  }
}

/**
 * Each request's logger carries the request id. A logger that writes nothing (VIGIL_LOG_LEVEL=silent) gets
 * no per-request child, as Fastify does when it has no logger; otherwise pino's cheaper child path is taken
 * when Fastify has no child options (route log level or serializers) to pass.
 */
function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  const hasOptions = options.level !== undefined || options.serializers !== undefined;
  if (logger.level === 'silent' && options.level === undefined) return logger;
  return logger.child(bindings, hasOptions ? options : undefined);
}

/** A body that is not multipart must be a JSON object (400 INVALID_REQUEST otherwise). */
function requireJsonObjectBody(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  try {
    if (!String(request.headers['content-type'] ?? '').startsWith('multipart/')) requireObjectBody(request);
    done();
  } catch (error) {
    done(error as Error);
  }
}

export type RoutePlugin = (app: FastifyInstance, services: Services) => Promise<void>;

/** Route groups under /api/v1, in registration order. A new group is one file plus one line here. */
const ROUTE_GROUPS: RoutePlugin[] = [healthRoutes, tenantRoutes, scanRoutes, functionalRoutes, usageRoutes, artifactRoutes, llmRoutes, billingRoutes, notificationRoutes, complianceRoutes, baselineRoutes];

export async function buildServer(services: Services, version: string): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: services.logger as FastifyBaseLogger,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    childLoggerFactory: requestLogger,
    bodyLimit: services.config.bodyLimitBytes,
    // A JSON body with a `__proto__` key, or a `constructor` key holding `prototype`, is refused with 400
    // INVALID_REQUEST (stated here, not left to the default, because it guards every route's input).
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    trustProxy: services.config.deployment === 'hosted',
    forceCloseConnections: false,
    // Every answer Node or Fastify would write themselves is given in the error shape (see edge-errors.ts).
    return503OnClosing: false,
    clientErrorHandler,
    frameworkErrors,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    http: { maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false },
    ajv: { customOptions: { allErrors: true, coerceTypes: 'array', removeAdditional: false, useDefaults: true } },
  });

  const routeTable: ServedRoute[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // A public route (no API key) that names no other scheme is documented as needing none.
    if ((route.config as { public?: boolean } | undefined)?.public && route.schema && route.schema.security === undefined) route.schema.security = [];
    for (const method of methods) routeTable.push({ method, url: route.url, documented: !route.schema?.hide });
  });

  // Callback-style hooks where no I/O is needed: an async hook costs a promise on every request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  registerEdgeChecks(app);
  answerUnhandledEvents(app.server);
  registerErrorHandling(app, { appUrl: services.config.appUrl });
  await registerDocs(app, version);

  // The live socket sits at {ws_base_url}/ws/live, outside the /api/v1 prefix, with its own key check.
  await app.register(async (root) => liveRoute(root, services));
  // The web dashboard's static files at /app (and / leading to it), outside /api/v1: no key, its own CSP.
  await app.register(async (root) => dashboardRoutes(root));

  await app.register(
    async (api) => {
      // Checks that only some routes need are attached to those routes when they are declared, not run
      // (and skipped) on every request: bodies on routes that declare one must be JSON objects (anything
      // else is a malformed request, 400); numeric query values must be finite.
      api.addHook('onRoute', (route) => {
        if (route.schema?.body) route.preValidation = [requireJsonObjectBody, ...routeHooks(route.preValidation)];
        if (route.schema?.querystring) route.preHandler = [refuseNonFiniteQuery, ...routeHooks(route.preHandler)];
      });
      await api.register(authPlugin, services);
      await api.register(rateLimitPlugin, services.rateLimiter);
      for (const group of ROUTE_GROUPS) await api.register(group, services);
    },
    { prefix: API_PREFIX },
  );
  return app;
}
