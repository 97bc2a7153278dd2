import type { SecretBox } from '../domain/secret-box.js';
import { API_PREFIX } from './plugins/docs.js';

/**
 * Screenshot and diff-image links an `<img>` can load without the API key: bound to the tenant and the
 * artifact, expiring, signed with a key derived from the master key.
 */
export class ArtifactLinks {
  constructor(
    private readonly box: SecretBox,
    private readonly lifetimeSeconds: number,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  url(baseUrl: string, tenantId: string, artifactId: string): string {
    const expires = Math.floor(this.clock().getTime() / 1000) + this.lifetimeSeconds;
    const signature = this.box.sign(`${tenantId}\n${artifactId}\n${expires}`);
    const query = new URLSearchParams({ tenant: tenantId, expires: String(expires), signature });
    return `${baseUrl}${API_PREFIX}/artifacts/${encodeURIComponent(artifactId)}?${query}`;
  }

  /** 'ok', or why the link is refused. */
  check(tenantId: string, artifactId: string, expires: number, signature: string): 'ok' | 'expired' | 'invalid' {
    if (!this.box.verify(`${tenantId}\n${artifactId}\n${expires}`, signature)) return 'invalid';
    return expires * 1000 < this.clock().getTime() ? 'expired' : 'ok';
  }
}
