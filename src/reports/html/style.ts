/** The report's one stylesheet, its one script (the before / after slider) and the CSP that allows exactly those. */
import { createHash } from 'node:crypto';

// ---------------------------------------------------------------------------------------------------
// Styles

export const STYLE = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d8dee4; --panel: #f6f8fa; --code: #f3f4f6;
  --pass: #1a7f37; --fail: #cf222e;
  --critical: #a4161a; --high: #d9480f; --medium: #b7791f; --low: #1f6feb; --info: #6e7781; --none: #8c959f;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #30363d; --panel: #161b22; --code: #1c2128;
    --pass: #3fb950; --fail: #f85149;
    --critical: #ff6b6b; --high: #ff922b; --medium: #fcc419; --low: #4dabf7; --info: #adb5bd; --none: #6e7681;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif;
}
main { max-width: 1180px; margin: 0 auto; padding: 32px 24px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 36px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 24px 0 8px; display: flex; align-items: center; gap: 8px; }
p { margin: 6px 0; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }
.muted { color: var(--muted); }
.url { overflow-wrap: anywhere; word-break: break-word; }
header.report { display: flex; justify-content: space-between; gap: 16px; flex-wrap: wrap; align-items: flex-start; }
.brand { font-size: 12px; letter-spacing: .08em; text-transform: uppercase; color: var(--muted); font-weight: 600; }
.status { display: inline-block; padding: 3px 10px; border-radius: 999px; font-weight: 600; font-size: 13px; border: 1px solid currentColor; }
.status-completed { color: var(--pass); } .status-failed, .status-cancelled { color: var(--fail); } .status-queued, .status-running { color: var(--muted); }
.banner { margin: 16px 0; padding: 12px 16px; border-radius: 6px; border: 1px solid var(--line); border-left: 4px solid var(--muted); background: var(--panel); }
.banner.bad { border-left-color: var(--fail); } .banner.good { border-left-color: var(--pass); } .banner.warn { border-left-color: var(--medium); }
.banner ul { margin: 4px 0 0; padding-left: 20px; }
ul.endpoints { margin: 4px 0 0; padding-left: 18px; } ul.endpoints li { overflow-wrap: anywhere; }
.badge.invented { background: var(--medium); min-width: 0; margin-left: 6px; }
.check-info dl { margin: 6px 0 0; } .check-info dt { font-weight: 600; margin-top: 6px; } .check-info dd { margin: 2px 0 0; }
.check-entry { border: 1px solid var(--line); border-radius: 8px; padding: 4px 16px 12px; margin: 12px 0; background: var(--panel); }
.check-entry dt { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; margin-top: 10px; }
.check-entry dd { margin: 2px 0 0; }
.reached-yes { color: var(--pass); font-weight: 600; } .reached-no { color: var(--fail); font-weight: 600; } .reached-none { color: var(--muted); }
.banner strong { display: block; margin-bottom: 2px; }
.not-tested { margin: 16px 0; padding: 4px 16px 8px; border: 2px solid var(--fail); border-left-width: 6px; border-radius: 8px; background: var(--panel); }
.not-tested h2 { color: var(--fail); margin-top: 8px; } .not-tested .headline { font-weight: 600; font-size: 15px; } .not-tested ul.causes { padding-left: 20px; }
dl.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 10px 24px; margin: 16px 0; }
dl.facts div { min-width: 0; }
dl.facts dt { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
dl.facts dd { margin: 2px 0 0; font-weight: 500; overflow-wrap: anywhere; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(140px, 1fr)); gap: 12px; margin: 16px 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; background: var(--panel); }
.card .n { font-size: 26px; font-weight: 700; line-height: 1.1; font-variant-numeric: tabular-nums; }
.card .l { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.card.pass .n { color: var(--pass); } .card.fail .n { color: var(--fail); }
.chart-row { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 24px; align-items: start; }
@media (max-width: 760px) { .chart-row { grid-template-columns: 1fr; } }
figure { margin: 0; }
figcaption { font-size: 12px; color: var(--muted); margin-top: 4px; }
svg text { fill: var(--fg); font: 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
svg .track { fill: var(--panel); stroke: var(--line); }
table { width: 100%; border-collapse: collapse; margin: 8px 0 16px; font-variant-numeric: tabular-nums; }
th, td { text-align: left; vertical-align: top; padding: 7px 10px; border-bottom: 1px solid var(--line); }
th { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); font-weight: 600; background: var(--panel); }
td.num, th.num { text-align: right; white-space: nowrap; }
tr { break-inside: avoid; }
.sev, .badge { display: inline-block; min-width: 64px; text-align: center; padding: 1px 8px; border-radius: 4px; font-size: 12px; font-weight: 600; color: #fff; background: var(--none); }
.sev-critical { background: var(--critical); } .sev-high { background: var(--high); } .sev-medium { background: var(--medium); }
.sev-low { background: var(--low); } .sev-info { background: var(--info); }
@media (prefers-color-scheme: dark) { .sev, .badge { color: #0d1117; } }
.badge.pass { background: var(--pass); } .badge.fail { background: var(--fail); } .badge.warn { background: var(--medium); }
.badge.good { background: var(--pass); } .badge.needs-improvement { background: var(--medium); } .badge.poor { background: var(--fail); }
.badge.impact-critical { background: var(--critical); } .badge.impact-serious { background: var(--high); }
.badge.impact-moderate { background: var(--medium); } .badge.impact-minor { background: var(--low); }
.dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%; }
.dot.sev-critical { background: var(--critical); } .dot.sev-high { background: var(--high); } .dot.sev-medium { background: var(--medium); }
.dot.sev-low { background: var(--low); } .dot.sev-info { background: var(--info); } .dot.sev-none { background: var(--none); }
details { margin: 4px 0 0; }
summary { cursor: pointer; color: var(--muted); font-size: 12.5px; }
pre { margin: 6px 0 0; padding: 10px 12px; background: var(--code); border: 1px solid var(--line); border-radius: 6px;
  white-space: pre-wrap; overflow-wrap: anywhere; word-break: break-word; max-height: 480px; overflow: auto; }
.refs { font-size: 12.5px; color: var(--muted); }
ul.a11y-nodes { margin: 6px 0 0; padding-left: 20px; } ul.a11y-nodes li { margin-bottom: 8px; }
ul.a11y-nodes.compact li { margin-bottom: 2px; } p.note { background: var(--panel); border-left: 3px solid var(--line); padding: 6px 10px; } img.thumb { width: 320px; max-width: 100%; height: auto; } code.snippet { font-size: 12px; word-break: break-all; } .a11y-page { margin-top: 6px; } .rule-fix { margin-top: 6px; }
.a11y-nodes .fix, td .fix { font-size: 12.5px; white-space: pre-wrap; }
.empty { padding: 14px 16px; border: 1px dashed var(--line); border-radius: 6px; color: var(--muted); }
nav.toc { font-size: 13px; margin: 12px 0; } nav.toc a { color: var(--muted); margin-right: 14px; }
footer { margin-top: 40px; padding-top: 12px; border-top: 1px solid var(--line); font-size: 12px; color: var(--muted); }
.finding-group { border: 1px solid var(--line); border-left: 4px solid var(--none); border-radius: 8px; padding: 4px 16px 12px; margin: 14px 0; }
.finding-group.sev-border-critical { border-left-color: var(--critical); } .finding-group.sev-border-high { border-left-color: var(--high); }
.finding-group.sev-border-medium { border-left-color: var(--medium); } .finding-group.sev-border-low { border-left-color: var(--low); } .finding-group.sev-border-info { border-left-color: var(--info); }
.finding-group dl { margin: 4px 0 8px; } .finding-group dt { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; margin-top: 8px; }
.finding-group dd { margin: 2px 0 0; }
details.passed-tasks { margin: 6px 0 16px; } details.passed-tasks > summary { font-size: 13px; }
.visual-page { border: 1px solid var(--line); border-radius: 8px; padding: 8px 16px 14px; margin: 14px 0; }
.visual-page h3 { margin-top: 8px; }
.compare-frame { max-height: 760px; overflow: auto; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); }
.compare { position: relative; display: inline-block; vertical-align: top; max-width: 100%; --pos: 50%; }
.compare img { display: block; max-width: 100%; height: auto; }
.compare .after-layer { position: absolute; inset: 0; clip-path: inset(0 0 0 var(--pos)); }
.compare .after-layer img { width: 100%; }
.compare::after { content: ""; position: absolute; top: 0; bottom: 0; left: var(--pos); border-left: 2px solid var(--fail); pointer-events: none; }
.compare-controls { display: flex; align-items: center; gap: 10px; margin: 8px 0; font-size: 12.5px; color: var(--muted); }
input.compare-slider { flex: 1; max-width: 640px; }
img.shot { display: block; max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 6px; }
.shots { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 12px; margin-top: 8px; }
.metric-good { color: var(--pass); } .metric-needs-improvement { color: var(--medium); font-weight: 600; } .metric-poor { color: var(--fail); font-weight: 700; }
.budget-fail { color: var(--fail); font-weight: 600; } .budget-warn { color: var(--medium); font-weight: 600; } .budget-pass { color: var(--pass); }
@media print {
  :root {
    color-scheme: light;
    --bg: #ffffff; --fg: #000000; --muted: #4b5563; --line: #c7cdd4; --panel: #f5f6f8; --code: #f5f6f8;
    --pass: #1a7f37; --fail: #b42318;
    --critical: #a4161a; --high: #c2410c; --medium: #a16207; --low: #1d4ed8; --info: #4b5563; --none: #6b7280;
  }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .sev, .badge { color: #ffffff; }
  body { font-size: 11px; }
  main { max-width: none; padding: 0; }
  nav.toc { display: none; }
  h2 { break-after: avoid; } h3 { break-after: avoid; }
  pre { max-height: none; overflow: visible; }
  details::details-content { content-visibility: visible; display: block; }
  .compare-frame { max-height: none; overflow: visible; } .compare-controls { display: none; }
  summary { color: var(--fg); }
}
@page { margin: 14mm 12mm; }
`;

/** The before / after slider: the range input sets where the "after" layer's clip starts. */
export const SCRIPT = `for (const range of document.querySelectorAll('input.compare-slider')) {
  const compare = document.getElementById(range.getAttribute('aria-controls'));
  const set = () => compare.style.setProperty('--pos', range.value + '%');
  range.addEventListener('input', set);
  set();
}`;

export const HTML_CSP = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${createHash('sha256').update(SCRIPT).digest('base64')}'`;
