import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import { ArtifactLinkQuery, ArtifactParams } from '../schemas/artifacts.js';
import { errorResponses } from '../schemas/common.js';
import type { TypeBoxTypeProvider } from '../schemas/type-provider.js';
import type { Services } from '../services.js';

/** Screenshots and diff images behind signed, expiring, tenant-bound links (no API key, so an <img> can load them). */
export async function artifactRoutes(fastify: FastifyInstance, services: Services): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/artifacts/:id',
    {
      config: { public: true },
      schema: {
        tags: ['functional'],
        summary: 'A screenshot or diff image (signed link)',
        description:
          'The links in visual regression reports. They carry their own signature and expiry (VIGIL_ARTIFACT_LINK_SECONDS, default 24 h) instead of the API key.',
        security: [],
        params: ArtifactParams,
        querystring: ArtifactLinkQuery,
        response: {
          200: {
            description: 'The image (PNG; JPEG or WebP for artifacts stored so)',
            content: {
              'image/png': { schema: { type: 'string', contentMediaType: 'image/png', description: 'The image bytes' } },
              'image/jpeg': { schema: { type: 'string', contentMediaType: 'image/jpeg', description: 'The image bytes' } },
              'image/webp': { schema: { type: 'string', contentMediaType: 'image/webp', description: 'The image bytes' } },
            },
          },
          ...errorResponses({
            403: 'Signature invalid (LINK_INVALID) or link expired (LINK_EXPIRED)',
            404: 'No such artifact',
            422: 'Link parameters missing',
          }),
        },
      },
    },
    async (request, reply) => {
      const { tenant, expires, signature } = request.query;
      const verdict = services.artifactLinks.check(tenant, request.params.id, expires, signature);
      if (verdict === 'invalid') throw new ApiError(403, 'LINK_INVALID', 'This link is not valid');
      if (verdict === 'expired') throw new ApiError(403, 'LINK_EXPIRED', 'This link has expired; fetch the report again for fresh links');
      const artifact = await services.artifacts.get(tenant, request.params.id);
      if (!artifact) throw new ApiError(404, 'NOT_FOUND', 'Artifact not found');
      return reply.type(artifact.contentType).header('Cache-Control', 'private, max-age=3600').header('X-Content-Type-Options', 'nosniff').send(artifact.bytes);
    },
  );
}
