/**
 * The client package, served by Vigil itself: `GET /cli/vigil-cli.tgz` (the `npm pack` of packages/cli
 * that `npm run build` writes to dist/cli-package) and `GET /cli/vigil-cli.tgz.sha256` (its SHA-256, as
 * `sha256sum -c` reads it). CI templates install from there, checksummed: no public registry name that
 * someone else could publish under ends up in a pipeline. No key needed, outside /api/v1 like the dashboard.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import { errorResponses } from '../schemas/common.js';

/** Where `npm run build` (scripts/pack-cli.mjs) writes the tarball: from src/http/routes or dist/http/routes alike. */
export const CLI_PACKAGE_FILE = fileURLToPath(new URL('../../../dist/cli-package/vigil-cli.tgz', import.meta.url));
export const CLI_PACKAGE_PATH = '/cli/vigil-cli.tgz';

function readPackage(file: string): { bytes: Buffer; sha256: string } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    throw new ApiError(
      404,
      'NOT_FOUND',
      'The client package is not built on this server: run "npm run build" where Vigil runs (it packs packages/cli into dist/cli-package)',
    );
  }
  return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

export async function cliPackageRoutes(app: FastifyInstance, file = CLI_PACKAGE_FILE): Promise<void> {
  app.get(
    CLI_PACKAGE_PATH,
    {
      config: { public: true },
      schema: {
        tags: ['cli'],
        summary: 'The vigil CLI as an npm tarball (npm install --global <this URL>)',
        description: 'Checksum at /cli/vigil-cli.tgz.sha256 and in the X-Checksum-Sha256 header. No key needed.',
        security: [],
        response: {
          200: {
            description: 'The packed client (npm tarball)',
            headers: {
              'X-Checksum-Sha256': { type: 'string', description: 'SHA-256 of the body, hex' },
              'Content-Disposition': { type: 'string', description: 'attachment; filename="vigil-cli.tgz"' },
            },
            content: { 'application/gzip': { schema: { type: 'string', contentMediaType: 'application/gzip', description: 'npm tarball' } } },
          },
          ...errorResponses({ 404: 'The client package is not built on this server (npm run build packs it)' }),
        },
      },
    },
    async (_request, reply) => {
      const { bytes, sha256 } = readPackage(file);
      return reply
        .type('application/gzip')
        .header('Content-Disposition', 'attachment; filename="vigil-cli.tgz"')
        .header('X-Checksum-Sha256', sha256)
        .header('Cache-Control', 'no-cache')
        .send(bytes);
    },
  );
  app.get(
    `${CLI_PACKAGE_PATH}.sha256`,
    {
      config: { public: true },
      schema: {
        tags: ['cli'],
        summary: 'SHA-256 of the vigil CLI tarball, as sha256sum -c reads it',
        description:
          'One line, `<sha256>  vigil-cli.tgz`: download both, then `sha256sum -c vigil-cli.tgz.sha256` before `npm install ./vigil-cli.tgz` (docs/ci.md). No key needed.',
        security: [],
        response: {
          200: {
            description: '`<sha256>  vigil-cli.tgz`',
            content: {
              'text/plain': {
                schema: {
                  type: 'string',
                  contentMediaType: 'text/plain',
                  examples: ['55346f6a4676e45ea27e3095d2cffa54bdb5b4ca03a5c3d63788383393714997  vigil-cli.tgz\n'],
                },
              },
            },
          },
          ...errorResponses({ 404: 'The client package is not built on this server (npm run build packs it)' }),
        },
      },
    },
    async (_request, reply) =>
      reply
        .type('text/plain; charset=utf-8')
        .header('Cache-Control', 'no-cache')
        .send(`${readPackage(file).sha256}  vigil-cli.tgz\n`),
  );
}
