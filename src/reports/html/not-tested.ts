/** The "Not tested" section: first after the report's header, so an untested scan is never read as a clean one. */
import type { NotTestedSummary } from '../not-tested.js';
import { Html, html, formatNumber, plural } from './markup.js';

function endpointsDetails(endpoints: readonly string[]): Html | '' {
  if (endpoints.length === 0) return '';
  return html`<details><summary>which</summary><ul class="endpoints">${endpoints.map((e) => html`<li><code>${e}</code></li>`)}</ul></details>`;
}

/** Nothing when everything was tested (or the scan has no security section). */
export function notTestedSection(summary: NotTestedSummary | null): Html | '' {
  if (!summary || summary.everything_tested) return '';
  const { operations, checks } = summary;
  return html`<section id="not-tested" class="not-tested" role="alert" aria-labelledby="not-tested-title" data-operations-never-reached="${operations.never_reached}" data-check-runs-not-tested="${checks.not_tested}">
<h2 id="not-tested-title">Not tested</h2>
<p class="headline">${summary.headline}</p>
${summary.causes.length ? html`<ul class="causes">${summary.causes.map((c) => html`<li data-cause="${c.kind}">${c.text}</li>`)}</ul>` : ''}
<div class="cards">
<div class="card${operations.never_reached > 0 ? ' fail' : ''}"><div class="n" data-count="operations-never-reached">${formatNumber(operations.never_reached)} / ${formatNumber(operations.total)}</div><div class="l">Operations never reached</div></div>
<div class="card"><div class="n" data-count="operations-skipped">${formatNumber(operations.skipped)}</div><div class="l">Operations skipped</div></div>
<div class="card${checks.not_tested > 0 ? ' fail' : ''}"><div class="n" data-count="check-runs-not-tested">${formatNumber(checks.not_tested)} / ${formatNumber(checks.runs)}</div><div class="l">Check runs not tested</div></div>
</div>
${
  operations.reasons.length
    ? html`<h3>Operations, by reason</h3>
<table class="not-tested-operations">
<thead><tr><th>Reason</th><th class="num">Operations</th></tr></thead>
<tbody>
${operations.reasons.map((r) => html`<tr data-reason-code="${r.reason_code}" data-reason="${r.reason}" data-count="${r.count}"><td>${r.reason}${endpointsDetails(r.endpoints)}</td><td class="num">${formatNumber(r.count)}</td></tr>`)}
</tbody>
</table>`
    : ''
}
${
  checks.reasons.length
    ? html`<h3>Checks, by reason</h3>
<table class="not-tested-checks">
<thead><tr><th>Reason</th><th>Checks</th><th class="num">Check runs</th></tr></thead>
<tbody>
${checks.reasons.map(
  (r) =>
    html`<tr data-reason-code="${r.reason_code}" data-reason="${r.reason}" data-count="${r.count}"><td>${r.reason} <code class="muted">${r.reason_code}</code></td><td>${r.checks.map(
      (c) =>
        html`<div data-check="${c.check}">${c.title} <code>${c.check}</code>: ${c.endpoints.length ? plural(c.count, 'operation') : plural(c.count, 'run')}${c.reason === r.reason ? '' : html` (${c.reason})`}${endpointsDetails(c.endpoints)}</div>`,
    )}</td><td class="num">${formatNumber(r.count)}</td></tr>`,
)}
</tbody>
</table>`
    : ''
}
<p class="muted">A check run is one check on one operation (or once for a check of the whole target). Check runs that do not apply (no body, public by design...) are not counted here (${formatNumber(checks.not_applicable)}). The coverage section lists every operation and check.</p>
</section>`;
}
