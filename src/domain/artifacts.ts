/** Where scans keep binary artifacts and visual baselines: the contract the stores implement and the engines use. */

/** Binary artifacts (screenshots, diff images) readable by every api instance. */
export interface ArtifactStore {
  put(tenantId: string, bytes: Buffer, contentType: string): Promise<string>;
  get(tenantId: string, artifactId: string): Promise<{ bytes: Buffer; contentType: string } | undefined>;
}

/** The branch a scan without `options.branch` is on, and the one other branches fall back to. */
export const DEFAULT_BRANCH = 'main';

/**
 * What a visual baseline is kept under, besides the tenant. The host is not part of it: the same page
 * on localhost, 127.0.0.1 or a pull request's preview host has one baseline.
 */
export interface BaselineKey {
  /** The page's path and query (`/pricing?plan=pro`), or its label from `options.pages`. */
  page_key: string;
  /** `1280x800` */
  viewport: string;
  device: 'desktop' | 'mobile';
  branch: string;
}

/** Where a baseline's screenshot came from. */
export interface BaselineSource {
  /** The page's full URL when it was captured (any host). */
  page_url: string;
  /** The scan that captured it, when known. */
  scan_id?: string;
}

export interface Baseline extends BaselineKey {
  id: string;
  artifact_id: string;
  /** Null for baselines migrated from before scans were recorded with them. */
  page_url: string | null;
  scan_id: string | null;
  created_at: string;
  updated_at: string;
}

/** Visual baselines by tenant + key. Values are artifact ids. */
export interface BaselineStore {
  get(tenantId: string, key: BaselineKey): Promise<string | undefined>;
  set(tenantId: string, key: BaselineKey, artifactId: string, source: BaselineSource): Promise<unknown>;
}

/** A fragment that names a hash-routed single-page app's route (`#/pricing`, `#!/pricing`), not an anchor. */
export function isHashRoute(hash: string): boolean {
  return /^#!?\//.test(hash);
}

/** The stable key of a page URL: its path and query (and hash route), without host or anchor. */
export function pagePathKey(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search + (isHashRoute(u.hash) ? u.hash : '');
}

/** `1280x800` */
export function viewportKey(viewport: { width: number; height: number }): string {
  return `${viewport.width}x${viewport.height}`;
}

/** The branch a scan's baselines are on: `options.branch`, else its default branch (scans queued before branches: main). */
export function scanBranch(options: { branch?: string; default_branch?: string }): string {
  return options.branch ?? defaultBranchOf(options);
}

/** The branch a branch without a page's baseline falls back to. */
export function defaultBranchOf(options: { default_branch?: string }): string {
  return options.default_branch ?? DEFAULT_BRANCH;
}
