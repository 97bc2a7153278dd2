/** Schemas of the signed artifact links (GET /artifacts/{id}). */
import { Type } from '@sinclair/typebox';

export const ArtifactParams = Type.Object({ id: Type.String({ minLength: 1, description: 'artifact id (an unknown one, of any length, is 404)' }) });
export const ArtifactLinkQuery = Type.Object({
  tenant: Type.String({ minLength: 1, maxLength: 128 }),
  // Unix seconds; bounded so a huge or `1e400` value is 422 (links never expire past 2106).
  expires: Type.Integer({ minimum: 0, maximum: 4_294_967_295 }),
  signature: Type.String({ minLength: 1, maxLength: 128 }),
});
