import { describe, expect, it } from 'vitest';
import { adoptsCurrent, baselineKey, findBaseline, lookupBaseline } from '../../../src/engines/functional/visual/page-key.js';
import { FUNCTIONAL_OPTIONS, MemoryBaselines } from '../../helpers/functional-engine.js';

const START = 'http://localhost:3000/';

describe('baseline keys', () => {
  it('are path and query (no host, no fragment) + viewport + device + branch', () => {
    const a = baselineKey('http://localhost:3000/pricing?plan=pro', START, FUNCTIONAL_OPTIONS);
    const b = baselineKey('https://pr-12.preview.example.com/pricing?plan=pro', 'https://pr-12.preview.example.com/', FUNCTIONAL_OPTIONS);
    expect(a).toEqual({ page_key: '/pricing?plan=pro', viewport: '1280x800', device: 'desktop', branch: 'main' });
    expect(b).toEqual(a);
    expect(baselineKey('http://localhost:3000/pricing?plan=team', START, FUNCTIONAL_OPTIONS).page_key).toBe('/pricing?plan=team');
    const mobile = baselineKey('http://localhost:3000/', START, { ...FUNCTIONAL_OPTIONS, device: 'mobile', viewport: { width: 412, height: 823 } });
    expect(mobile).toEqual({ page_key: '/', viewport: '412x823', device: 'mobile', branch: 'main' });
  });

  it('are the label of a labelled page, matched after resolving its url against the start URL', () => {
    const options = { ...FUNCTIONAL_OPTIONS, page_labels: [{ label: 'checkout', url: '/checkout?session=abc#step' }] };
    expect(baselineKey('http://localhost:3000/checkout?session=abc', START, options).page_key).toBe('checkout');
    expect(baselineKey('http://localhost:3000/checkout?session=xyz', START, options).page_key).toBe('/checkout?session=xyz');
  });

  it('are on options.branch, else the default branch', () => {
    expect(baselineKey(START, START, { ...FUNCTIONAL_OPTIONS, branch: 'feature/x' }).branch).toBe('feature/x');
    expect(baselineKey(START, START, { ...FUNCTIONAL_OPTIONS, default_branch: 'trunk' }).branch).toBe('trunk');
    // A scan queued before branches existed carries no default_branch.
    expect(baselineKey(START, START, { ...FUNCTIONAL_OPTIONS, default_branch: undefined as never }).branch).toBe('main');
  });
});

describe('branch fallback', () => {
  const options = { ...FUNCTIONAL_OPTIONS, branch: 'feature/x' };
  const key = baselineKey(START, START, options);

  it("finds the branch's own baseline first, else the default branch's, else none", async () => {
    const store = new MemoryBaselines();
    expect(await findBaseline(store, 't1', key, options)).toBeUndefined();
    await store.set('t1', { ...key, branch: 'main' }, 'art_main');
    expect(await findBaseline(store, 't1', key, options)).toEqual({ artifact_id: 'art_main', branch: 'main' });
    await store.set('t1', key, 'art_branch');
    expect(await findBaseline(store, 't1', key, options)).toEqual({ artifact_id: 'art_branch', branch: 'feature/x' });
    expect(await findBaseline(store, 't2', key, options)).toBeUndefined();
  });

  it('falls back to options.default_branch, not main, when that is set', async () => {
    const store = new MemoryBaselines();
    await store.set('t1', { ...key, branch: 'main' }, 'art_main');
    await store.set('t1', { ...key, branch: 'trunk' }, 'art_trunk');
    const trunk = { ...options, default_branch: 'trunk' };
    expect(await findBaseline(store, 't1', baselineKey(START, START, trunk), trunk)).toEqual({ artifact_id: 'art_trunk', branch: 'trunk' });
  });

  it("the branch adopts the screenshot only when it matched the default branch's baseline", () => {
    expect(adoptsCurrent({ artifact_id: 'a', branch: 'main' }, key, false)).toBe(true);
    expect(adoptsCurrent({ artifact_id: 'a', branch: 'main' }, key, true)).toBe(false);
    expect(adoptsCurrent({ artifact_id: 'a', branch: 'feature/x' }, key, false)).toBe(false);
  });

  it('reset_baseline looks nothing up', async () => {
    const store = new MemoryBaselines();
    await store.set('t1', key, 'art_branch');
    const scan = { tenantId: 't1', input: { url: START, reset_baseline: true }, options, baselines: store };
    expect(await lookupBaseline(scan, START)).toEqual({ key });
    expect(await lookupBaseline({ ...scan, input: { url: START, reset_baseline: false } }, START)).toEqual({
      key,
      found: { artifact_id: 'art_branch', branch: 'feature/x' },
    });
  });
});
