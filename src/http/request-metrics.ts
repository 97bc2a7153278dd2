import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onResponseHookHandler, RouteOptions } from 'fastify';
import { httpRequests } from '../observability/metrics.js';
import { routeHooks } from './plugins/auth.js';

type Increment = { inc(): void };

/**
 * Counts every answered request in vigil_http_requests_total by method, route pattern and status: each
 * route gets its own onResponse hook that knows its pattern (reading it from the request would build an
 * object per request), and keeps one bound counter per status it has answered with. Requests no route
 * matched count as route "unmatched". Installed only when the metrics are served; before any route.
 */
export function countRequests(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    route.onResponse = [...routeHooks(route.onResponse), countFor(route.url, route.method)];
  });
  const unmatched = new Map<string, Increment[]>();
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) {
      let byStatus = unmatched.get(request.method);
      if (!byStatus) unmatched.set(request.method, (byStatus = []));
      (byStatus[reply.statusCode] ??= httpRequests.labels(request.method, 'unmatched', String(reply.statusCode))).inc();
    }
    done();
  });
}

function countFor(url: string, method: RouteOptions['method']): onResponseHookHandler {
  if (typeof method !== 'string') {
    return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      httpRequests.inc({ method: request.method, route: url, status: String(reply.statusCode) });
      done();
    };
  }
  const byStatus: Increment[] = [];
  return (_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    (byStatus[reply.statusCode] ??= httpRequests.labels(method, url, String(reply.statusCode))).inc();
    done();
  };
}
