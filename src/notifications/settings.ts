/** Per-tenant notification settings: stored sealed, read back redacted. */
import type { Kysely } from 'kysely';
import type { SecretBox } from '../domain/secret-box.js';
import type { Database } from '../store/schema.js';
import type { Channel } from './channels.js';

export interface NotificationSettings {
  enabled: boolean;
  channels: Channel[];
}

export const EMPTY_SETTINGS: NotificationSettings = { enabled: true, channels: [] };

/** What GET shows: URL paths (where chat webhooks keep their token), header values and secrets hidden. */
export function redactSettings(settings: NotificationSettings) {
  return {
    enabled: settings.enabled,
    channels: settings.channels.map((c) => {
      let url = '(invalid)';
      try {
        const u = new URL(c.url);
        url = `${u.protocol}//${u.host}/***`;
      } catch {
        /* keep placeholder */
      }
      return {
        kind: c.kind,
        url,
        events: c.events ?? null,
        headers: Object.fromEntries(Object.keys(c.headers ?? {}).map((k) => [k, '***'])),
        has_secret: Boolean(c.secret),
      };
    }),
  };
}

export class NotificationSettingsRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly box: SecretBox,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async get(tenantId: string): Promise<NotificationSettings> {
    const row = await this.db.selectFrom('notification_settings').select('sealed').where('tenant_id', '=', tenantId).executeTakeFirst();
    if (!row) return EMPTY_SETTINGS;
    return JSON.parse(this.box.open(row.sealed)) as NotificationSettings;
  }

  async put(tenantId: string, settings: NotificationSettings): Promise<void> {
    const sealed = this.box.seal(JSON.stringify(settings));
    const updated_at = this.clock().toISOString();
    await this.db
      .insertInto('notification_settings')
      .values({ tenant_id: tenantId, sealed, updated_at })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ sealed, updated_at }))
      .execute();
  }
}
