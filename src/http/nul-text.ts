import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { countRefusal } from '../observability/metrics.js';
import { ApiError } from './errors.js';

/** Whether a decoded path parameter or query value (or one of a repeated query's values) holds a NUL. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  return Array.isArray(value) && value.some((v) => typeof v === 'string' && v.includes('\u0000'));
}

/**
 * No identifier, filter or sign-in name Vigil keeps can hold a NUL character (`%00`), and PostgreSQL
 * refuses NUL in text, so passing one on to a lookup would fail there instead of being told to the
 * client. In a path it names nothing: 404 NOT_FOUND, as for any identifier that does not exist. In the
 * query string it is a malformed request: 400 INVALID_REQUEST.
 */
export function refuseNulInPathAndQuery(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (holdsNulAnywhere(request.params)) {
    countRefusal('nul_text');
    return done(new ApiError(404, 'NOT_FOUND', 'No such resource: an identifier never holds a NUL character (%00)'));
  }
  if (holdsNulAnywhere(request.query)) {
    countRefusal('nul_text');
    return done(new ApiError(400, 'INVALID_REQUEST', 'The query string holds a NUL character (%00), which no filter or name can contain'));
  }
  done();
}

function holdsNulAnywhere(part: unknown): boolean {
  if (!part || typeof part !== 'object') return false;
  const record = part as Record<string, unknown>;
  return Object.keys(record).some((key) => key.includes('\u0000') || holdsNul(record[key]));
}
