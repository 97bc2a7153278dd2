import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyTypeProvider } from 'fastify';

/**
 * Request and reply types inferred from a route's TypeBox schemas, so a handler never restates them
 * as `Body`/`Params`/`Querystring` generics. It is what `@fastify/type-provider-typebox` declares for
 * Fastify 5; written here because that package is not a dependency (its runtime part is not needed:
 * Ajv validates as before).
 */
export interface TypeBoxTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
  serializer: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
}
