import pino from 'pino';
import type { EngineContext, ProgressDetail } from '../../../src/engines/engine.js';
import type { ScanInput } from '../../../src/domain/scan.js';

export function makeCtx(
  input: Partial<ScanInput> & { url: string },
  extra: Partial<EngineContext> = {},
): EngineContext & { progressSeen: number[]; detailSeen: ProgressDetail[] } {
  const progressSeen: number[] = [];
  const detailSeen: ProgressDetail[] = [];
  return {
    scanId: 'scan-test',
    tenantId: 'tenant-test',
    input: {
      mode: 'security',
      reset_baseline: false,
      ...input,
      options: {
        concurrency: 5,
        timeout: 10,
        exclude: [],
        max_pages: 10,
        diff_threshold_percent: 0.5,
        min_region_px: 150,
        viewport: { width: 1280, height: 720 },
        device: 'desktop',
        accessibility_profile: 'wcag21aa',
        default_branch: 'main',
        ...(input.options ?? {}),
      },
    },
    signal: new AbortController().signal,
    progress: (p, detail) => {
      progressSeen.push(p);
      if (detail) detailSeen.push(detail);
    },
    deployment: 'self-hosted',
    artifacts: { put: async () => '', get: async () => undefined },
    baselines: { get: async () => undefined, set: async () => undefined },
    logger: pino({ level: 'silent' }),
    progressSeen,
    detailSeen,
    ...extra,
  };
}

/** A DNS lookup for the engine's test hook: names under .vigil-fixture.test resolve to 127.0.0.1 (as if public), others fail. */
export function fixtureLookup(
  hostname: string,
  options: { all?: boolean },
  callback: (err: NodeJS.ErrnoException | null, address: any, family?: number) => void,
): void {
  if (!hostname.endsWith('.vigil-fixture.test')) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
  if (options?.all) return callback(null, [{ address: '127.0.0.1', family: 4 }]);
  callback(null, '127.0.0.1', 4);
}
