/** Where scans keep binary artifacts and visual baselines: the contract the stores implement and the engines use. */

/** Binary artifacts (screenshots, diff images) readable by every api instance. */
export interface ArtifactStore {
  put(tenantId: string, bytes: Buffer, contentType: string): Promise<string>;
  get(tenantId: string, artifactId: string): Promise<{ bytes: Buffer; contentType: string } | undefined>;
}

/** Visual baselines, keyed by tenant + page URL + viewport. Values are artifact ids. */
export interface BaselineStore {
  get(tenantId: string, pageUrl: string, viewport: string): Promise<string | undefined>;
  set(tenantId: string, pageUrl: string, viewport: string, artifactId: string): Promise<void>;
}
