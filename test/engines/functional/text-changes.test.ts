/**
 * Text changes by meaning: a reworded heading is a change whatever its pixel count, reported with
 * its selector, box and both texts; the snapshot travels inside the baseline PNG; unchanged text,
 * text moved by an insertion, masked and ignored areas are not changes. First scans say the
 * baseline was recorded; diffs say how to approve.
 */
import { PNG } from 'pngjs';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChromium } from '../../../src/engines/functional/browser.js';
import { createFunctionalEngine } from '../../../src/engines/functional/index.js';
import { decodePng } from '../../../src/engines/functional/visual/png.js';
import {
  compareText,
  describeTextChange,
  embedTextSnapshot,
  MAX_TEXT,
  readTextSnapshot,
  snapshotText,
  stripTextSnapshot,
  type TextElement,
  type TextSnapshot,
} from '../../../src/engines/functional/visual/text-snapshot.js';
import { startCspSite, type CspSite } from '../../fixtures/csp-site/server.js';
import { functionalContext, MemoryArtifacts, MemoryBaselines } from '../../helpers/functional-engine.js';

const el = (selector: string, tag: string, text: string, y: number): TextElement => ({ selector, tag, text, box: { x: 10, y, width: 300, height: 20 } });
const snap = (...elements: TextElement[]): TextSnapshot => ({ elements, truncated: false });

describe('comparing text snapshots', () => {
  const base = snap(el('h1', 'h1', 'Harbour News', 0), el('p:nth-of-type(1)', 'p', 'Tide tables', 40), el('p:nth-of-type(2)', 'p', 'Ferry times', 80));

  it('a reworded element is one change with both texts, described in words', () => {
    const now = snap(el('h1', 'h1', 'Harbour Daily', 0), base.elements[1], base.elements[2]);
    const changes = compareText(base, now);
    expect(changes).toEqual([
      { kind: 'changed', selector: 'h1', tag: 'h1', before: 'Harbour News', after: 'Harbour Daily', box: { x: 10, y: 0, width: 300, height: 20 } },
    ]);
    expect(describeTextChange(changes[0])).toBe("h1 text changed: 'Harbour News' → 'Harbour Daily' (h1)");
  });

  it('an inserted paragraph is one addition: the texts it pushed down (new selectors, new boxes) are not changes', () => {
    const now = snap(
      base.elements[0],
      el('p:nth-of-type(1)', 'p', 'Storm warning', 40),
      el('p:nth-of-type(2)', 'p', 'Tide tables', 80),
      el('p:nth-of-type(3)', 'p', 'Ferry times', 120),
    );
    expect(compareText(base, now).map((c) => [c.kind, c.after])).toEqual([['added', 'Storm warning']]);
  });

  it('a removed element is reported with its baseline box; same texts give nothing; ignored areas are left out', () => {
    const now = snap(base.elements[0], base.elements[2]);
    expect(compareText(base, now).map((c) => [c.kind, c.before, c.box.y])).toEqual([['removed', 'Tide tables', 40]]);
    expect(compareText(base, base)).toEqual([]);
    expect(compareText(base, now, [{ x: 0, y: 35, width: 1000, height: 10 }])).toEqual([]);
  });

  it('a long text is quoted from just before its first difference, and a change past its recorded beginning is said as such', () => {
    const long = 'Backbone.js gives structure to web applications by providing models with key-value binding';
    const changed = compareText(snap(el('p', 'p', long, 0)), snap(el('p', 'p', long.replace(/binding$/, 'Edited'), 0)));
    expect(describeTextChange(changed[0])).toBe("p text changed: '...oviding models with key-value binding' → '...oviding models with key-value Edited' (p)");
    const head = 'x'.repeat(MAX_TEXT - 11);
    const past = compareText(snap(el('p', 'p', `${head} …#0000abcd`, 0)), snap(el('p', 'p', `${head} …#ffff1234`, 0)));
    expect(past).toHaveLength(1);
    expect(describeTextChange(past[0])).toBe(`p text changed: '${'x'.repeat(77)}...', past its first ${MAX_TEXT - 11} characters (p)`);
  });

  it('the snapshot travels inside the PNG: decoders still read the pixels, and it can be stripped off again', () => {
    const png = new PNG({ width: 4, height: 3 });
    png.data.fill(200);
    const plain = PNG.sync.write(png);
    const withText = embedTextSnapshot(plain, snap(el('h1', 'h1', 'Hafen – Nachrichten ✓', 0)));
    expect(readTextSnapshot(withText)?.elements[0].text).toBe('Hafen – Nachrichten ✓');
    expect(readTextSnapshot(plain)).toBeUndefined();
    expect(PNG.sync.read(withText).data.equals(png.data)).toBe(true);
    expect(decodePng(withText).data.equals(png.data)).toBe(true);
    expect(stripTextSnapshot(withText).equals(plain)).toBe(true);
  });
});

describe('recording the text of a page', () => {
  it('a word changed at the end of a paragraph longer than MAX_TEXT changes the recorded text (kept as its beginning and a hash)', async () => {
    const browser = await chromium.launch({ executablePath: resolveChromium(), args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      const words = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
      const texts: string[] = [];
      for (const last of ['binding', 'Edited']) {
        await page.setContent(`<main><p>${words} ${last}</p><h1>Short</h1></main>`);
        const shot = await snapshotText(page);
        expect(shot.elements.map((e) => e.tag)).toEqual(['p', 'h1']);
        texts.push(shot.elements[0].text);
      }
      expect(texts[0].length).toBe(MAX_TEXT);
      expect(texts[0].startsWith('word0 word1 ')).toBe(true);
      expect(texts[0]).toMatch(/ …#[0-9a-f]{8}$/);
      expect(texts[1]).not.toBe(texts[0]);
      expect(texts[1].slice(0, MAX_TEXT - 11)).toBe(texts[0].slice(0, MAX_TEXT - 11));
    } finally {
      await browser.close();
    }
  }, 60_000);
});

describe('a scan catches a reworded heading by its text', () => {
  let site: CspSite;
  const engine = createFunctionalEngine();
  beforeAll(async () => {
    site = await startCspSite();
  });
  afterAll(async () => {
    await engine.close();
    await site.close();
  });

  it("'Harbour News' → 'Harbour Daily' is a diff even where no pixel threshold would see one", async () => {
    const artifacts = new MemoryArtifacts();
    const baselines = new MemoryBaselines();
    // Pixel rules that no one-word change can reach: only the text can tell.
    const scan = () =>
      engine.run(
        functionalContext(
          { url: site.url, options: { pages: [site.url], throttling: 'none', min_region_px: 1_000_000, diff_threshold_percent: 50 } },
          { artifacts, baselines, scanId: 'scan-42' },
        ),
      );
    site.headline = 'Harbour News';
    const first = await scan();
    const recorded = first.functional!.visual[0];
    expect(recorded.baseline_created).toBe(true);
    expect(recorded.message).toMatch(/^baseline recorded/);
    const dom = JSON.parse(artifacts.items.get(`t1/${recorded.dom_snapshot_artifact}`)!.bytes.toString('utf8'));
    expect(dom.elements.find((e: TextElement) => e.tag === 'h1')?.text).toBe('Harbour News');

    site.headline = 'Harbour Daily';
    const second = await scan();
    const page = second.functional!.visual[0];
    expect(page.diff_detected).toBe(true);
    expect(page.regions?.[0]?.changed_pixels ?? 0).toBeLessThan(1_000_000);
    expect(page.text_changes).toHaveLength(1);
    const change = page.text_changes![0];
    expect(change).toMatchObject({ kind: 'changed', tag: 'h1', before: 'Harbour News', after: 'Harbour Daily' });
    expect(change.selector).toContain('h1');
    expect(change.box.width).toBeGreaterThan(0);
    const task = second.tasks.find((t) => t.name.startsWith('Visual regression'));
    expect(task?.status).toBe('failed');
    expect(task?.error).toContain("h1 text changed: 'Harbour News' → 'Harbour Daily'");
    expect(page.diff_artifact).not.toBeNull();
    expect(page.message).toContain('POST /api/v1/baselines/approve');
    expect(page.message).toContain('"scan_id":"scan-42"');
    expect(page.message).toContain('dashboard');

    // Unchanged since the baseline (a third scan against the same baseline): no text change, no diff.
    site.headline = 'Harbour News';
    const third = await scan();
    expect(third.functional!.visual[0].diff_detected).toBe(false);
    expect(third.functional!.visual[0].text_changes).toBeUndefined();
  }, 180_000);
});
