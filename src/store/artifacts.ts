import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { newId } from '../domain/ids.js';
import type { ArtifactStore } from '../domain/artifacts.js';
import type { Database } from './schema.js';

const SAFE_ID = /^art_[A-Za-z0-9_-]{8,64}$/;
const SAFE_TENANT = /^[A-Za-z0-9._-]{1,128}$/;

/** Embedded: files under `<data dir>/artifacts/<tenant>/`, with the content type beside each. */
export class FileArtifactStore implements ArtifactStore {
  constructor(private readonly root: string) {}

  private dir(tenantId: string): string {
    if (!SAFE_TENANT.test(tenantId) || tenantId.startsWith('.')) throw new Error('unsafe tenant id for a file path');
    return join(this.root, tenantId);
  }

  async put(tenantId: string, bytes: Buffer, contentType: string): Promise<string> {
    const id = newId('art');
    const dir = this.dir(tenantId);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${id}.type`), contentType);
    await writeFile(join(dir, id), bytes);
    return id;
  }

  async get(tenantId: string, artifactId: string): Promise<{ bytes: Buffer; contentType: string } | undefined> {
    if (!SAFE_ID.test(artifactId)) return undefined;
    try {
      const dir = this.dir(tenantId);
      const [bytes, contentType] = await Promise.all([readFile(join(dir, artifactId)), readFile(join(dir, `${artifactId}.type`), 'utf8')]);
      return { bytes, contentType };
    } catch {
      return undefined;
    }
  }
}

/** Distributed: rows in the shared database, so every api instance can serve them. */
export class DatabaseArtifactStore implements ArtifactStore {
  constructor(private readonly db: Kysely<Database>) {}

  async put(tenantId: string, bytes: Buffer, contentType: string): Promise<string> {
    const id = newId('art');
    await this.db
      .insertInto('artifacts')
      .values({ id, tenant_id: tenantId, content_type: contentType, data: bytes.toString('base64'), created_at: new Date().toISOString() })
      .execute();
    return id;
  }

  async get(tenantId: string, artifactId: string): Promise<{ bytes: Buffer; contentType: string } | undefined> {
    const row = await this.db
      .selectFrom('artifacts')
      .select(['data', 'content_type'])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', artifactId)
      .executeTakeFirst();
    return row ? { bytes: Buffer.from(row.data, 'base64'), contentType: row.content_type } : undefined;
  }
}
