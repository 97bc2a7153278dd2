/**
 * Layout moves by element: on a pixel diff, the elements that kept their text but moved or changed
 * size are named, and a run of elements shifted alike is one move.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFunctionalEngine } from '../../../src/engines/functional/index.js';
import { compareLayout } from '../../../src/engines/functional/visual/layout-moves.js';
import type { TextElement, TextSnapshot } from '../../../src/engines/functional/visual/text-snapshot.js';
import { startCspSite, type CspSite } from '../../fixtures/csp-site/server.js';
import { functionalContext, MemoryArtifacts, MemoryBaselines } from '../../helpers/functional-engine.js';

const el = (selector: string, tag: string, text: string, y: number, x = 10, width = 300, height = 20): TextElement => ({
  selector,
  tag,
  text,
  box: { x, y, width, height },
});
const snap = (...elements: TextElement[]): TextSnapshot => ({ elements, truncated: false });

describe('comparing layouts', () => {
  const base = snap(
    el('h1', 'h1', 'Harbour News', 0),
    el('p:nth-of-type(1)', 'p', 'Tide tables', 40),
    el('p:nth-of-type(2)', 'p', 'Ferry times', 80),
    el('footer', 'footer', 'Contact', 120),
  );

  it('elements pushed down alike are one move named by the first, with its offset and boxes', () => {
    const now = snap(
      base.elements[0],
      el('p:nth-of-type(1)', 'p', 'Tide tables', 80),
      el('p:nth-of-type(2)', 'p', 'Ferry times', 120),
      el('footer', 'footer', 'Contact', 160),
    );
    const moves = compareLayout(base, now);
    expect(moves).toHaveLength(1);
    expect(moves[0]).toMatchObject({ tag: 'p', text: 'Tide tables', elements: 3, dx: 0, dy: 40, width_change: 0, height_change: 0 });
    expect(moves[0].before).toEqual({ x: 10, y: 40, width: 300, height: 100 });
    expect(moves[0].after).toEqual({ x: 10, y: 80, width: 300, height: 100 });
    expect(moves[0].description).toBe("p 'Tide tables' and the 2 element(s) after it moved down 40 px (p:nth-of-type(1))");
  });

  it('different offsets are different moves, largest run first; a resize is said in words', () => {
    const now = snap(
      el('h1', 'h1', 'Harbour News', 0, 10, 300, 36),
      el('p:nth-of-type(1)', 'p', 'Tide tables', 40, 50),
      el('p:nth-of-type(2)', 'p', 'Ferry times', 90),
      el('footer', 'footer', 'Contact', 130),
    );
    const moves = compareLayout(base, now);
    expect(moves.map((m) => [m.tag, m.elements, m.dx, m.dy])).toEqual([
      ['p', 2, 0, 10],
      ['h1', 1, 0, 0],
      ['p', 1, 40, 0],
    ]);
    expect(moves[1].description).toBe("h1 'Harbour News' was resized from 300x20 to 300x36 (h1)");
    expect(moves[2].description).toContain('moved right 40 px');
  });

  it('shifts under 3 px, unchanged layouts and moves inside ignored areas give nothing', () => {
    const jitter = snap(el('h1', 'h1', 'Harbour News', 2), base.elements[1], base.elements[2], base.elements[3]);
    expect(compareLayout(base, jitter)).toEqual([]);
    expect(compareLayout(base, base)).toEqual([]);
    const pushed = snap(base.elements[0], el('p:nth-of-type(1)', 'p', 'Tide tables', 80), base.elements[2], base.elements[3]);
    expect(compareLayout(base, pushed, [{ x: 0, y: 30, width: 1000, height: 80 }])).toEqual([]);
  });
});

describe('a scan names what moved', () => {
  let site: CspSite;
  const engine = createFunctionalEngine();
  beforeAll(async () => {
    site = await startCspSite();
  });
  afterAll(async () => {
    await engine.close();
    await site.close();
  });

  it('a taller image pushes the text under it down: the diff names the paragraphs and the offset', async () => {
    const artifacts = new MemoryArtifacts();
    const baselines = new MemoryBaselines();
    const scan = () =>
      engine.run(functionalContext({ url: site.url, options: { pages: [site.url], throttling: 'none' } }, { artifacts, baselines, scanId: 'scan-7' }));
    site.headline = 'Harbour News';
    site.tallHero = false;
    expect((await scan()).functional!.visual[0].baseline_created).toBe(true);

    site.tallHero = true;
    const moved = await scan();
    const page = moved.functional!.visual[0];
    expect(page.diff_detected).toBe(true);
    expect(page.text_changes).toBeUndefined();
    const push = page.layout_moves?.find((m) => m.tag === 'p');
    expect(push).toMatchObject({ dx: 0, dy: 80, elements: 2 });
    expect(push!.text).toMatch(/^The tide tables/);
    const task = moved.tasks.find((t) => t.name.startsWith('Visual regression'));
    expect(task?.error).toContain('layout: p ');
    expect(task?.error).toContain('moved down 80 px');

    // The same layout as the baseline: no diff, nothing moved.
    site.tallHero = false;
    const same = (await scan()).functional!.visual[0];
    expect(same.diff_detected).toBe(false);
    expect(same.layout_moves).toBeUndefined();
  }, 180_000);
});
