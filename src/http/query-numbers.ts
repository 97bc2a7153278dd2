import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { validationError } from './errors.js';

/**
 * Ajv's type coercion turns a query value such as `1e400` into Infinity and then skips `minimum` and
 * `maximum` (its range checks only look at finite numbers), so `?page=1e400` passed validation and
 * reached the store. After validation, any query value that is a non-finite number is refused as
 * the 422 the schema meant it to be.
 */
export function refuseNonFiniteQuery(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const query = request.query as Record<string, unknown> | undefined;
  if (query && typeof query === 'object') {
    const fields = Object.keys(query)
      .filter((key) => typeof query[key] === 'number' && !Number.isFinite(query[key]))
      .map((key) => ({ field: `querystring.${key}`, message: 'must be a finite number within its documented range' }));
    if (fields.length > 0) return done(validationError(fields));
  }
  done();
}
