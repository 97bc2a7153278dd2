import { randomUUID } from 'node:crypto';
import type { Bindings, ChildLoggerOptions } from 'pino';
import { AjvCompiler, type Options as AjvOptions } from '@fastify/ajv-compiler';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type HookHandlerDoneFunction } from 'fastify';
import { ApiError, registerErrorHandling, requireObjectBody } from './errors.js';
import { exceededJsonBound } from './json-bounds.js';
import { answerUnhandledEvents, clientErrorHandler, frameworkErrors, MAX_HEADER_BYTES, MAX_PARAM_LENGTH, registerEdgeChecks } from './edge-errors.js';
import { authPlugin, routeHooks } from './plugins/auth.js';
import { rateLimitPlugin } from './plugins/rate-limit.js';
import { idempotencyPlugin } from './plugins/idempotency.js';
import { refuseNonFiniteQuery } from './query-numbers.js';
import { refuseNulInPathAndQuery } from './nul-text.js';
import { OpenBodies } from './open-bodies.js';
import { API_PREFIX, registerDocs } from './plugins/docs.js';
import { healthRoutes } from './routes/health.js';
import { healthReadyRoutes } from './routes/health-ready.js';
import { metricsRoute } from './routes/metrics.js';
import { countRequests } from './request-metrics.js';
import { countRefusal } from '../observability/metrics.js';
import { tenantRoutes } from './routes/tenants.js';
import { artifactRoutes } from './routes/artifacts.js';
import { functionalRoutes } from './routes/functional.js';
import { cliPackageRoutes } from './routes/cli-package.js';
import { reportRoutes } from './routes/reports.js';
import { scanRoutes } from './routes/scans.js';
import { usageRoutes } from './routes/usage.js';
import { llmRoutes } from './routes/llm.js';
import { billingRoutes } from './routes/billing.js';
import { notificationRoutes } from './routes/notifications.js';
import { complianceRoutes } from './routes/compliance.js';
import { liveRoute } from './routes/live.js';
import { baselineRoutes } from './routes/baselines.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { memberRoutes } from './routes/members.js';
import { suppressionRoutes } from './routes/suppressions.js';
import { sessionRoutes } from './routes/sessions.js';
import { ssoDomainRoutes } from './routes/sso-domains.js';
import { samlRoutes, ssoRoutes } from './routes/sso.js';
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

/**
 * The one log line of a request, when it has been answered: its id (the child logger's binding), method and
 * URL (through the logger's req serializer, which redacts ?api_key=), status and response time in ms.
 */
function logRequest(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  request.log.info({ req: request, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime }, 'request completed');
  done();
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

/**
 * JSON bodies are checked against JSON_BOUNDS on their raw text before they are parsed, so no body can
 * make parsing or validation hold the event loop (the parser keeps Fastify's prototype-poisoning refusal).
 */
function boundJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const exceeded = exceededJsonBound(body as string);
    if (exceeded) {
      countRefusal('json_bounds');
      return done(new ApiError(400, 'INVALID_REQUEST', `${exceeded}; no request accepts that many`), undefined);
    }
    parse(request, body as string, done);
  });
}

const AJV_OPTIONS = { allErrors: true, removeAdditional: false, useDefaults: true } as const;
type BuildValidator = (externalSchemas: unknown, options: { customOptions: AjvOptions; plugins?: unknown[] }) => (route: RouteDefinition) => unknown;
type RouteDefinition = { httpPart?: string; schema: unknown; method: string; url: string };

/**
 * Request validation: a JSON body is checked as sent (no coercion: `"5"` for an integer, `"true"` for a
 * boolean, a string for an array or a one-element array for a string is 422 VALIDATION_ERROR), while path,
 * query string and headers, which are text by nature, are read as the numbers and booleans their schema
 * asks for (and a repeated or single query value as an array).
 */
function validatorsByPart(build: BuildValidator) {
  return (externalSchemas: unknown, options: { plugins?: unknown[] } = {}) => {
    const strict = build(externalSchemas, { plugins: options.plugins, customOptions: { ...AJV_OPTIONS, coerceTypes: false } });
    const textual = build(externalSchemas, { plugins: options.plugins, customOptions: { ...AJV_OPTIONS, coerceTypes: 'array' } });
    return (route: RouteDefinition) => (route.httpPart === 'body' ? strict(route) : textual(route));
  };
}

export type RoutePlugin = (app: FastifyInstance, services: Services) => Promise<void>;

/** Route groups under /api/v1, in registration order. A new group is one file plus one line here. */
const ROUTE_GROUPS: RoutePlugin[] = [
  healthRoutes,
  healthReadyRoutes,
  tenantRoutes,
  scanRoutes,
  reportRoutes,
  functionalRoutes,
  usageRoutes,
  artifactRoutes,
  llmRoutes,
  billingRoutes,
  notificationRoutes,
  complianceRoutes,
  baselineRoutes,
  ssoRoutes,
  ssoDomainRoutes,
  samlRoutes,
  sessionRoutes,
  memberRoutes,
  suppressionRoutes,
];

export async function buildServer(services: Services, version: string): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: services.logger as FastifyBaseLogger,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    childLoggerFactory: requestLogger,
    // One line per request (logRequest below) instead of Fastify's two ("incoming request" and
    // "request completed"): the same fields at half the lines.
    disableRequestLogging: true,
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
    schemaController: { compilersFactory: { buildValidator: validatorsByPart(AjvCompiler() as unknown as BuildValidator) as never } },
  });

  boundJsonBodies(app);

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
  if (services.logger.isLevelEnabled('info')) app.addHook('onResponse', logRequest);
  if (services.config.metrics.countRequests) countRequests(app);
  registerEdgeChecks(app);
  answerUnhandledEvents(app.server);
  registerErrorHandling(app, { appUrl: services.config.appUrl });
  await registerDocs(app, version);

  // The live socket sits at {ws_base_url}/ws/live, outside the /api/v1 prefix, with its own key check.
  await app.register(async (root) => liveRoute(root, services));
  // The web dashboard's static files at /app (and / leading to it), outside /api/v1: no key, its own CSP.
  await app.register(async (root) => dashboardRoutes(root));
  // The client package (npm tarball and its checksum) at /cli, outside /api/v1: what the CI templates install.
  await app.register(async (root) => cliPackageRoutes(root));
  // Prometheus metrics at /metrics, outside /api/v1, behind their own token (routes/metrics.ts says why).
  const metricsToken = services.config.metrics.token;
  if (metricsToken) await app.register(async (root) => metricsRoute(root, { token: metricsToken }));

  await app.register(
    async (api) => {
      // Checks that only some routes need are attached to those routes when they are declared, not run
      // (and skipped) on every request: bodies on routes that declare one must be JSON objects (anything
      // else is a malformed request, 400); numeric query values must be finite; path and query text holds no NUL.
      api.addHook('onRoute', (route) => {
        if (route.schema?.body) route.preValidation = [requireJsonObjectBody, ...routeHooks(route.preValidation)];
        if (route.schema?.querystring) route.preHandler = [refuseNonFiniteQuery, ...routeHooks(route.preHandler)];
        if (route.schema?.params || route.schema?.querystring) route.preValidation = [refuseNulInPathAndQuery, ...routeHooks(route.preValidation)];
      });
      await api.register(authPlugin, services);
      // After authentication (onRequest), so that a tenant's bodies are counted too.
      const openBodies = new OpenBodies(services.config.openBodies);
      api.addHook('preParsing', openBodies.hook);
      api.addHook('preValidation', openBodies.received);
      await api.register(rateLimitPlugin, services.rateLimiter);
      await api.register(idempotencyPlugin, services.idempotencyKeys);
      for (const group of ROUTE_GROUPS) await api.register(group, services);
    },
    { prefix: API_PREFIX },
  );
  return app;
}
