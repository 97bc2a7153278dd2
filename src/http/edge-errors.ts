/**
 * Answers given before a route runs, in the same `{error, message, status}` shape as every other
 * error: what Node's HTTP parser refuses (malformed request, oversized headers, timeouts), what
 * Fastify's router refuses (bad percent-encoding, over-long path parameter), a missing Host header,
 * an unsupported Expect header, CONNECT, an over-long URL, and requests that arrive while the server closes.
 * Node and Fastify would otherwise write their own bodies (`FST_ERR_BAD_URL`, `Client Error`, an
 * empty 400, `Service Unavailable`).
 */
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { countRefusal } from '../observability/metrics.js';
import { errorBody } from './errors.js';

/** Longest request target (path and query) accepted: 414 above it. */
export const MAX_URL_LENGTH = 8192;
/** Request line and headers together (Node's maxHeaderSize): 431 above it. */
export const MAX_HEADER_BYTES = 16 * 1024;
/**
 * Longest path parameter (Fastify's maxParamLength): as long as the URL itself may be, so an unknown id of
 * any length is looked up and answered 404 NOT_FOUND (the contract's rule 3); only a URL over
 * MAX_URL_LENGTH is 414.
 */
export const MAX_PARAM_LENGTH = MAX_URL_LENGTH;

function jsonResponse(status: number, code: string, message: string): string {
  const body = JSON.stringify(errorBody(status, code, message));
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/** Node's `clientError`: the request could not be parsed, so no request id or route exists yet. */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // A response already under way on this socket cannot be replaced by another.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    if (error.code === 'HPE_HEADER_OVERFLOW') {
      countRefusal('headers_too_large');
      socket.write(jsonResponse(431, 'HEADERS_TOO_LARGE', `The request line and headers are larger than ${MAX_HEADER_BYTES} bytes`));
    } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      countRefusal('request_timeout');
      socket.write(jsonResponse(408, 'REQUEST_TIMEOUT', 'The request was not received in time'));
    } else {
      countRefusal('malformed');
      socket.write(jsonResponse(400, 'INVALID_REQUEST', 'Malformed HTTP request'));
    }
  }
  socket.destroy(error);
}

/** Fastify's router errors (raised before any hook runs). */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Request-Id', request.id);
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    countRefusal('uri_too_long');
    reply.code(414).send(errorBody(414, 'URI_TOO_LONG', `A path segment is longer than ${MAX_PARAM_LENGTH} characters`));
  } else if (error.code === 'FST_ERR_BAD_URL') {
    countRefusal('bad_url');
    reply.code(400).send(errorBody(400, 'INVALID_REQUEST', 'The request path is not valid (malformed percent-encoding)'));
  } else {
    request.log.error({ err: error }, 'router error');
    reply.code(500).send(errorBody(500, 'INTERNAL_ERROR', 'An unexpected error occurred; quote the request id when reporting it', { request_id: request.id }));
  }
}

/**
 * The first onRequest hook: refuses what Node would have answered itself (missing Host, now checked
 * here), an over-long URL, and every request once the server is closing (503 instead of Fastify's
 * own body, so a load balancer and a client see the usual shape).
 */
export function registerEdgeChecks(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (closing) {
      countRefusal('shutting_down');
      reply
        .header('Connection', 'close')
        .code(503)
        .send(errorBody(503, 'SERVICE_UNAVAILABLE', 'The server is shutting down; retry in a moment'));
      return;
    }
    const raw = request.raw;
    if (raw.httpVersionMajor === 1 && raw.httpVersionMinor === 1 && raw.headers.host === undefined) {
      countRefusal('missing_host');
      reply
        .header('Connection', 'close')
        .code(400)
        .send(errorBody(400, 'INVALID_REQUEST', 'The Host header is required'));
      return;
    }
    if ((raw.url ?? '').length > MAX_URL_LENGTH) {
      countRefusal('uri_too_long');
      reply.code(414).send(errorBody(414, 'URI_TOO_LONG', `The request URL is longer than ${MAX_URL_LENGTH} characters`));
      return;
    }
    done();
  });
}

/**
 * Requests Node answers on its own unless someone listens: an `Expect:` other than 100-continue (a
 * bare 417) and CONNECT (the socket is dropped without an answer).
 */
export function answerUnhandledEvents(server: Server): void {
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify(errorBody(417, 'EXPECTATION_FAILED', 'Only "Expect: 100-continue" is supported'));
    res.writeHead(417, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
    res.end(body);
  });
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    socket.on('error', () => {});
    socket.end(jsonResponse(404, 'NOT_FOUND', `No route for CONNECT ${String(req.url).slice(0, 200)}`));
  });
}
