import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanOptions } from '../../../src/domain/scan.js';
import { createFunctionalEngine } from '../../../src/engines/functional/index.js';
import { startSite } from '../../fixtures/site/server.js';
import { functionalContext, MemoryArtifacts, MemoryBaselines } from '../../helpers/functional-engine.js';

/**
 * The real engine against the fixture site reached under two host names that both resolve to loopback
 * (127.0.0.1, and localhost as a stand-in for a pull request's preview host): one baseline per page key.
 */
const engine = createFunctionalEngine();
let site: Awaited<ReturnType<typeof startSite>>;
let hosts: { ip: string; name: string };

/** One scan of `pages` on `base`, sharing the stores between runs. */
function scanOf(
  base: string,
  pages: ScanOptions['pages'],
  stores: { artifacts: MemoryArtifacts; baselines: MemoryBaselines },
  options: Partial<ScanOptions> = {},
  reset = false,
) {
  return engine.run(functionalContext({ url: base, reset_baseline: reset, options: { pages, concurrency: 1, ...options } }, stores));
}

beforeAll(async () => {
  site = await startSite();
  hosts = { ip: site.url, name: site.url.replace('127.0.0.1', 'localhost') };
});
afterAll(async () => {
  await engine.close();
  site.server.close();
});

describe('baselines by stable page key (real engine)', () => {
  it("two host names share a baseline: the second host compares against the first one's and sees a change", async () => {
    const stores = { artifacts: new MemoryArtifacts(), baselines: new MemoryBaselines() };
    site.setLayout(0);
    const first = (await scanOf(hosts.ip, ['/changing'], stores)).functional!.visual[0];
    expect(first).toMatchObject({ page_url: `${hosts.ip}/changing`, page_key: '/changing', baseline_created: true, baseline_branch: 'main' });

    const other = (await scanOf(hosts.name, ['/changing'], stores)).functional!.visual[0];
    expect(other).toMatchObject({ page_url: `${hosts.name}/changing`, page_key: '/changing', baseline_created: false, diff_detected: false, diff_percent: 0 });
    expect(other.baseline_artifact).toBe(first.current_artifact);

    site.setLayout(1);
    const changed = (await scanOf(hosts.name, ['/changing'], stores)).functional!.visual[0];
    expect(changed).toMatchObject({ baseline_created: false, diff_detected: true });
    expect(changed.baseline_artifact).toBe(first.current_artifact);
    expect(stores.baselines.items.size).toBe(1);
    site.setLayout(0);
  }, 120_000);

  it('a labelled page keeps its baseline whatever its URL (query and host)', async () => {
    const stores = { artifacts: new MemoryArtifacts(), baselines: new MemoryBaselines() };
    site.setLayout(0);
    const labels = (url: string) => ({ page_labels: [{ label: 'changing page', url }] });
    const first = (await scanOf(hosts.ip, ['/changing?session=1'], stores, labels('/changing?session=1'))).functional!.visual[0];
    expect(first).toMatchObject({ page_key: 'changing page', baseline_created: true });
    const second = (await scanOf(hosts.name, ['/changing?session=2'], stores, labels('/changing?session=2'))).functional!.visual[0];
    expect(second).toMatchObject({ page_key: 'changing page', baseline_created: false, diff_detected: false });
    expect(second.baseline_artifact).toBe(first.current_artifact);
  }, 120_000);

  it("a branch falls back to the default branch's baseline, keeps its own only once the page matches it", async () => {
    const stores = { artifacts: new MemoryArtifacts(), baselines: new MemoryBaselines() };
    site.setLayout(0);
    const main = (await scanOf(hosts.ip, ['/changing'], stores)).functional!.visual[0];
    expect(main).toMatchObject({ baseline_created: true, baseline_branch: 'main' });

    // An unchanged page on a preview host and branch: compared with main's, then kept as the branch's own.
    const same = (await scanOf(hosts.name, ['/changing'], stores, { branch: 'feature/same' })).functional!.visual[0];
    expect(same).toMatchObject({ baseline_created: false, diff_detected: false, baseline_branch: 'main', baseline_artifact: main.current_artifact });
    const ownKey = { page_key: '/changing', viewport: '1280x800', device: 'desktop' as const, branch: 'feature/same' };
    expect(await stores.baselines.get('t1', ownKey)).toBe(same.current_artifact);

    // A changed page on another branch: a diff against main's, and the branch keeps no baseline of its own.
    site.setLayout(1);
    const changed = (await scanOf(hosts.name, ['/changing'], stores, { branch: 'feature/changed' })).functional!.visual[0];
    expect(changed).toMatchObject({ baseline_created: false, diff_detected: true, baseline_branch: 'main', baseline_artifact: main.current_artifact });
    expect(await stores.baselines.get('t1', { ...ownKey, branch: 'feature/changed' })).toBeUndefined();
    const again = (await scanOf(hosts.name, ['/changing'], stores, { branch: 'feature/changed' })).functional!.visual[0];
    expect(again).toMatchObject({ diff_detected: true, baseline_branch: 'main' });

    // The branch with its own baseline compares against it; main's is untouched by branch scans.
    const onOwn = (await scanOf(hosts.name, ['/changing'], stores, { branch: 'feature/same' })).functional!.visual[0];
    expect(onOwn).toMatchObject({ diff_detected: true, baseline_branch: 'feature/same', baseline_artifact: same.current_artifact });
    expect(await stores.baselines.get('t1', { ...ownKey, branch: 'main' })).toBe(main.current_artifact);

    // reset_baseline on a branch sets the branch's, not main's.
    const reset = (await scanOf(hosts.name, ['/changing'], stores, { branch: 'feature/changed' }, true)).functional!.visual[0];
    expect(reset).toMatchObject({ baseline_created: true, baseline_branch: 'feature/changed' });
    expect(await stores.baselines.get('t1', { ...ownKey, branch: 'main' })).toBe(main.current_artifact);
    site.setLayout(0);
  }, 240_000);
});
