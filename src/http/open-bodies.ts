import type { FastifyReply, FastifyRequest, RequestPayload } from 'fastify';
import { countRefusal } from '../observability/metrics.js';
import { tooManyRequests } from './errors.js';

export interface OpenBodyLimits {
  perAddress: number;
  perTenant: number;
}

/**
 * Caps the request bodies still being received at once, per client address and per tenant, in this
 * process. A client trickling bodies byte by byte (slowloris) holds a socket and a parser for minutes
 * each; without a cap one address or one key could hold them all. A request over a cap is answered
 * 429 at once, before its body is read; a body counts from the hook that reads it until it is fully
 * received, refused or its connection closes.
 */
export class OpenBodies {
  private readonly byAddress = new Map<string, number>();
  private readonly byTenant = new Map<string, number>();
  private readonly releases = new WeakMap<FastifyRequest, () => void>();

  constructor(private readonly limits: OpenBodyLimits) {}

  /** Fastify preParsing hook. */
  readonly hook = (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: RequestPayload,
    done: (error?: Error | null, payload?: RequestPayload) => void,
  ): void => {
    const headers = request.headers;
    const hasBody = headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
    if (!hasBody) return done(null, payload);
    const address = request.ip;
    const tenant = request.tenant?.id;
    if ((this.byAddress.get(address) ?? 0) >= this.limits.perAddress) {
      countRefusal('open_bodies_address');
      return done(
        tooManyRequests(
          'RATE_LIMIT_EXCEEDED',
          `More than ${this.limits.perAddress} request bodies from this address are still being sent; retry when one has finished`,
          1,
        ),
      );
    }
    if (tenant !== undefined && (this.byTenant.get(tenant) ?? 0) >= this.limits.perTenant) {
      countRefusal('open_bodies_tenant');
      return done(
        tooManyRequests(
          'RATE_LIMIT_EXCEEDED',
          `More than ${this.limits.perTenant} request bodies of this tenant are still being sent; retry when one has finished`,
          1,
        ),
      );
    }
    add(this.byAddress, address, 1);
    if (tenant !== undefined) add(this.byTenant, tenant, 1);
    let open = true;
    const release = () => {
      if (!open) return;
      open = false;
      add(this.byAddress, address, -1);
      if (tenant !== undefined) add(this.byTenant, tenant, -1);
    };
    // Released when the body has been read (preValidation, before the handler and its answer), or when
    // the request ends another way (refused before its body was read, connection closed).
    this.releases.set(request, release);
    request.raw.once('close', release);
    reply.raw.once('finish', release);
    reply.raw.once('close', release);
    done(null, payload);
  };

  /** Fastify preValidation hook: the body has been received. */
  readonly received = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    this.releases.get(request)?.();
    done();
  };
}

function add(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}
