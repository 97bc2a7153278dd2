/** The visual regression section: per page the before / after slider and diff, or thumbnails, and the baseline notes. */
import type { FunctionalReport, VisualComparison } from '../../domain/results.js';
import { Html, html, formatNumber } from './markup.js';
import { suppressedNote } from './suppressed.js';

/** Images the report shows: data: URIs of raster images only (never a link that would load). */
export const EMBEDDABLE = /^data:image\/(png|jpeg|webp|gif);base64,[A-Za-z0-9+/]+=*$/;

/** The largest changed regions as boxes in page pixels, and an unstable page's hint. */
export function visualRegions(p: FunctionalReport['visual_regression']['pages'][number]): Html {
  const shown = p.regions.slice(0, 3);
  return html`${shown.length === 0 ? html`<span class="muted">none</span>` : shown.map((r) => html`<div class="mono" data-region>${String(r.width)}x${String(r.height)} at ${String(r.x)},${String(r.y)}: ${formatNumber(r.changed_pixels)} px</div>`)}${
    p.regions.length > shown.length ? html`<div class="muted">and ${formatNumber(p.regions.length - shown.length)} more</div>` : ''
  }${p.hint ? html`<div class="muted" data-hint>${p.hint}</div>` : ''}`;
}

export const embedded = (url: string | null | undefined): url is string => typeof url === 'string' && EMBEDDABLE.test(url);

/** Before / after of one page: the two screenshots stacked, a range input moving the edge between them, and the diff image. */
export function visualImages(p: VisualComparison, index: number): Html {
  const before = embedded(p.screenshot_before) ? p.screenshot_before : null;
  const after = embedded(p.screenshot_after) ? p.screenshot_after : null;
  const diff = embedded(p.diff_image) ? p.diff_image : null;
  if (!before && !after)
    return html`<p class="muted" data-images="none">Screenshots not embedded in this report: fetch them through the scan's visual-regression endpoint.</p>`;
  const id = `compare-${index + 1}`;
  const slider =
    before && after && !p.baseline_created
      ? html`<div class="compare-frame"><div class="compare" id="${id}" data-compare>
<img class="before" src="${before}" alt="${`Baseline (before) of ${p.page_url}`}">
<div class="after-layer"><img class="after" src="${after}" alt="${`This scan (after) of ${p.page_url}`}"></div>
</div></div>
<div class="compare-controls"><span>before</span><input type="range" class="compare-slider" min="0" max="100" step="1" value="50" aria-controls="${id}" aria-label="${`Move the edge between before (left) and after (right) for ${p.page_url}`}"><span>after</span></div>`
      : html`<div class="shots"><figure><img class="shot ${after ? 'after' : 'before'}" src="${after ?? before}" alt="${`${p.baseline_created ? 'Baseline set by this scan' : 'Screenshot'} of ${p.page_url}`}"><figcaption>${p.baseline_created ? 'Baseline set by this scan' : after ? 'This scan' : 'Baseline'}</figcaption></figure></div>`;
  const diffBlock = diff
    ? html`<details class="diff-image" open><summary>Diff image: changed pixels highlighted</summary><img class="shot diff" src="${diff}" alt="${`Changed pixels on ${p.page_url}`}"></details>`
    : p.diff_detected
      ? html`<p class="muted">Diff image not embedded.</p>`
      : '';
  return html`${slider}${diffBlock}`;
}

/**
 * A page shown by thumbnails (the report embeds full-size images only for pages with a diff, within its
 * size budget): this scan's screenshot and the diff, small, and where the full size is.
 */
export function visualThumbnails(p: VisualComparison): Html {
  const after = embedded(p.screenshot_after) ? p.screenshot_after : null;
  const diff = embedded(p.diff_image) ? p.diff_image : null;
  return html`<div class="shots" data-images="thumbnails">${after ? html`<figure><img class="shot thumb" src="${after}" alt="${`Thumbnail of this scan's screenshot of ${p.page_url}`}"><figcaption>${p.baseline_created ? 'Baseline recorded by this scan (thumbnail)' : 'This scan (thumbnail)'}</figcaption></figure>` : ''}${
    diff
      ? html`<figure><img class="shot thumb diff" src="${diff}" alt="${`Thumbnail of the changed pixels on ${p.page_url}`}"><figcaption>Diff (thumbnail)</figcaption></figure>`
      : ''
  }</div>
<p class="muted">Thumbnails keep this file small: the full-size screenshots and diff are in the dashboard (the scan's Functional tab) and at GET /scan/{id}/visual-regression.</p>`;
}

export function visualPage(p: VisualComparison, index: number, thumbnail: boolean, scanId: string): Html {
  const head = html`<h3><span class="badge ${p.diff_detected ? 'fail' : 'pass'}">${p.diff_detected ? 'diff detected' : 'no diff'}</span>${p.unstable ? html` <span class="badge warn">unstable</span>` : ''} <span class="url mono">${p.page_url}</span></h3>
<p class="muted">${p.viewport} · ${formatNumber(p.diff_percent, 2)}% of pixels differ${p.baseline_created ? ' · baseline created by this scan' : ''}${p.baseline_branch ? html` · baseline branch <code>${p.baseline_branch}</code>` : ''}</p>
${suppressedNote(p.suppressed)}${p.baseline_created ? html`<p class="note" data-baseline="recorded"><strong>Baseline recorded.</strong> This is the first scan of this page at this viewport: its screenshot is now the baseline the next scans are compared with.</p>` : ''}${
  p.diff_detected && !p.baseline_created
    ? html`<p class="note" data-approve="true"><strong>Intended change?</strong> Approve this scan's screenshot as the new baseline: in the dashboard (this scan, Functional, "Approve current as baseline"), with <code>vigil baselines approve ${scanId} --page '${p.page_key ?? p.page_url}'</code>, or <code>POST /api/v1/baselines/approve</code> with <code>${JSON.stringify({ scan_id: scanId, page: p.page_key ?? p.page_url })}</code>; otherwise fix the regression.</p>`
    : ''
}`;
  return p.diff_detected
    ? html`<section class="visual-page" data-page-diff="true">${head}${thumbnail ? visualThumbnails(p) : visualImages(p, index)}</section>`
    : html`<details class="visual-page" data-page-diff="false"><summary>${p.page_url}: no diff (${formatNumber(p.diff_percent, 2)}%)</summary>${head}${thumbnail ? visualThumbnails(p) : visualImages(p, index)}</details>`;
}

export function visualSection(visual: FunctionalReport['visual_regression'], thumbnails: ReadonlySet<string>, scanId: string): Html {
  const anyEmbedded = visual.pages.some((p) => embedded(p.screenshot_before) || embedded(p.screenshot_after));
  return html`<section id="visual-regression" aria-labelledby="visual-title">
<h2 id="visual-title">Visual regression</h2>
<div class="cards">
<div class="card"><div class="n">${formatNumber(visual.comparisons)}</div><div class="l">Comparisons</div></div>
<div class="card ${visual.diffs_detected > 0 ? 'fail' : 'pass'}"><div class="n" data-count="diffs">${formatNumber(visual.diffs_detected)}</div><div class="l">Diffs detected</div></div>
<div class="card"><div class="n">${formatNumber(visual.diff_threshold_percent, 2)}%</div><div class="l">Diff threshold</div></div>
</div>
${
  visual.pages.length === 0
    ? html`<p class="empty">No pages were compared.</p>`
    : html`<table class="visual">
<thead><tr><th>Page</th><th>Viewport</th><th class="num">Difference</th><th>Result</th><th>Changed regions</th><th>Baseline</th></tr></thead>
<tbody>
${visual.pages.map(
  (
    p,
  ) => html`<tr data-diff="${String(p.diff_detected)}"><td class="url mono">${p.page_url}</td><td class="mono">${p.viewport}</td><td class="num">${formatNumber(p.diff_percent, 2)}%</td>
<td><span class="badge ${p.diff_detected ? 'fail' : 'pass'}">${p.diff_detected ? 'diff detected' : 'no diff'}</span>${p.unstable ? html` <span class="badge warn" data-unstable="true">unstable</span>` : ''}${suppressedNote(p.suppressed)}</td>
<td>${visualRegions(p)}</td>
<td>${p.baseline_created ? 'created by this scan' : 'compared'}</td></tr>`,
)}
</tbody>
</table>
${visual.pages.map((p, i) => visualPage(p, i, thumbnails.has(p.page_url), scanId))}`
}
${anyEmbedded ? html`<p class="muted">Screenshots are embedded in this file. Drag the slider to move the edge between the baseline (left) and this scan (right).</p>` : html`<p class="muted">Screenshots and diff images are not embedded in this report: fetch them through the scan's visual-regression endpoint (its links are signed and expire).</p>`}
</section>`;
}
