/**
 * Running the real functional engine in tests: an engine context with normalised options (as the
 * API hands them over) and in-memory artifact and baseline stores.
 */
import pino from 'pino';
import type { ArtifactStore, BaselineKey, BaselineStore } from '../../src/domain/artifacts.js';
import type { ScanInput, ScanOptions } from '../../src/domain/scan.js';
import type { EngineContext } from '../../src/engines/engine.js';

/** Artifacts kept in a map, per tenant. */
export class MemoryArtifacts implements ArtifactStore {
  readonly items = new Map<string, { bytes: Buffer; contentType: string }>();
  private count = 0;
  async put(tenantId: string, bytes: Buffer, contentType: string): Promise<string> {
    const id = `a${++this.count}`;
    this.items.set(`${tenantId}/${id}`, { bytes, contentType });
    return id;
  }
  async get(tenantId: string, artifactId: string): Promise<{ bytes: Buffer; contentType: string } | undefined> {
    return this.items.get(`${tenantId}/${artifactId}`);
  }
}

/** Baselines kept in a map, per tenant and key (page key, viewport, device, branch). */
export class MemoryBaselines implements BaselineStore {
  readonly items = new Map<string, string>();
  async get(tenantId: string, key: BaselineKey): Promise<string | undefined> {
    return this.items.get(JSON.stringify([tenantId, key.page_key, key.viewport, key.device, key.branch]));
  }
  async set(tenantId: string, key: BaselineKey, artifactId: string): Promise<void> {
    this.items.set(JSON.stringify([tenantId, key.page_key, key.viewport, key.device, key.branch]), artifactId);
  }
}

/** The options normalizeScanRequest fills in, with two pages at once and a 1280x800 viewport. */
export const FUNCTIONAL_OPTIONS: ScanOptions = {
  concurrency: 2,
  timeout: 30,
  exclude: [],
  safe_mode: false,
  max_pages: 10,
  diff_threshold_percent: 0.5,
  min_region_px: 150,
  viewport: { width: 1280, height: 800 },
  device: 'desktop',
  accessibility_profile: 'wcag21aa',
  default_branch: 'main',
};

export type FunctionalInput = Partial<Omit<ScanInput, 'options'>> & { url: string; options?: Partial<ScanOptions> };

/**
 * A self-hosted functional scan of `input.url` by tenant t1. Without `artifacts` and `baselines` in
 * `extra` it gets stores of its own: every page sets its baseline.
 */
export function functionalContext(input: FunctionalInput, extra: Partial<EngineContext> = {}): EngineContext {
  return {
    scanId: 's',
    tenantId: 't1',
    signal: new AbortController().signal,
    progress: () => undefined,
    deployment: 'self-hosted',
    artifacts: new MemoryArtifacts(),
    baselines: new MemoryBaselines(),
    logger: pino({ level: 'silent' }),
    ...extra,
    input: {
      mode: 'functional',
      reset_baseline: false,
      ...input,
      options: { ...FUNCTIONAL_OPTIONS, ...input.options },
    },
  };
}
