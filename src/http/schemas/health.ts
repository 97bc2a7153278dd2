/** Schemas of GET /health. */
import { Type } from '@sinclair/typebox';

export const Healthy = Type.Object({ status: Type.Literal('ok') }, { description: 'The service and its store answer', examples: [{ status: 'ok' }] });
export const Unhealthy = Type.Object(
  { status: Type.Literal('unavailable'), error: Type.String(), message: Type.String() },
  {
    description: 'The store does not answer',
    examples: [{ status: 'unavailable', error: 'STORE_UNAVAILABLE', message: 'The database does not answer' }],
  },
);
