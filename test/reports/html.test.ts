import { describe, expect, it } from 'vitest';
import type { ScanReport } from '../../src/domain/results.js';
import { SEVERITIES } from '../../src/domain/scan.js';
import { createHash } from 'node:crypto';
import { HTML_CSP, escapeHtml, renderHtmlReport } from '../../src/reports/html.js';
import { HOSTILE, embeddedFullReport, failedReport, fullReport, securityOutcome, securityReport } from './fixtures.js';
import { tags, textContent } from './parse.js';

const ALL = { security: securityReport(), full: fullReport(), failed: failedReport(), embedded: embeddedFullReport() };
const render = (r: ScanReport) => renderHtmlReport(r);

/**
 * Elements a report may contain: nothing that loads, runs or submits, except images from data: URIs,
 * the slider's range input and our one inline script (allowed by its hash in the CSP).
 */
const ALLOWED_TAGS = new Set([
  'html',
  'head',
  'meta',
  'title',
  'style',
  'body',
  'main',
  'header',
  'footer',
  'nav',
  'section',
  'div',
  'span',
  'p',
  'a',
  'h1',
  'h2',
  'h3',
  'dl',
  'dt',
  'dd',
  'code',
  'pre',
  'strong',
  'time',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'details',
  'summary',
  'figure',
  'figcaption',
  'svg',
  'g',
  'rect',
  'text',
  'ul',
  'li',
  'img',
  'input',
  'script',
]);
const DATA_IMAGE = /^data:image\/png;base64,[A-Za-z0-9+/]+=*$/;
const URL_ATTRIBUTES = new Set([
  'src',
  'href',
  'xlink:href',
  'srcset',
  'action',
  'formaction',
  'poster',
  'data',
  'background',
  'cite',
  'longdesc',
  'manifest',
  'ping',
  'xmlns',
]);

describe('HTML export', () => {
  for (const [label, report] of Object.entries(ALL)) {
    describe(`${label} scan`, () => {
      const html = render(report);
      const all = tags(html);

      it('is an HTML5 document with the strict CSP first in <head>', () => {
        expect(html.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
        const head = html.slice(html.indexOf('<head>'), html.indexOf('</head>'));
        expect(head.indexOf('<meta charset="utf-8">')).toBeLessThan(head.indexOf('Content-Security-Policy'));
        expect(head.indexOf('Content-Security-Policy')).toBeLessThan(head.indexOf('<style>'));
        expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${escapeHtml(HTML_CSP)}">`);
        expect(HTML_CSP).toMatch(/^default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-[A-Za-z0-9+/]{43}='$/);
        // The only script is ours, and the CSP allows exactly it.
        const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
        expect(scripts.length).toBeLessThanOrEqual(1);
        for (const script of scripts) expect(HTML_CSP).toContain(`'sha256-${createHash('sha256').update(script).digest('base64')}'`);
        expect(scripts.length).toBe(label === 'embedded' ? 1 : 0);
      });

      it('references nothing external: no src, no external href, no url() or @import, no scripts', () => {
        for (const tag of all) {
          expect(ALLOWED_TAGS.has(tag.name), `unexpected element <${tag.name}>`).toBe(true);
          for (const attr of tag.attrs) {
            expect(attr.name.startsWith('on'), `event handler ${tag.raw}`).toBe(false);
            if (URL_ATTRIBUTES.has(attr.name)) {
              if (tag.name === 'img') {
                expect(attr.name, tag.raw).toBe('src');
                expect(attr.value, tag.raw.slice(0, 80)).toMatch(DATA_IMAGE);
                continue;
              }
              expect(attr.name, tag.raw).toBe('href');
              expect(attr.value, tag.raw).toMatch(/^#[\w-]+$/);
            }
            if (tag.name === 'script') expect(tag.attrs, tag.raw).toEqual([]);
            if (tag.name === 'input' && attr.name === 'type') expect(attr.value).toBe('range');
            if (attr.name === 'style') {
              expect(attr.value, tag.raw).not.toMatch(/url\s*\(|@import|expression\s*\(/i);
            }
            expect(attr.value ?? '', tag.raw).not.toMatch(/^\s*(https?:|\/\/|javascript:|data:)/i);
          }
        }
        const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
        expect(styles).toHaveLength(1);
        for (const css of styles) expect(css).not.toMatch(/url\s*\(|@import|@font-face|https?:/i);
        expect(html).not.toMatch(/<link|<iframe|<object|<embed|<base|<form|<audio|<video|<source/i);
        if (label !== 'embedded') expect(html).not.toMatch(/<script|<img|<input/i);
        // Every in-page anchor points at an element of the page.
        for (const tag of all.filter((t) => t.name === 'a' && !t.closing)) {
          const target = tag.attrs.find((a) => a.name === 'href')!.value!.slice(1);
          expect(html).toContain(`id="${target}"`);
        }
      });

      it('escapes every string from the report', () => {
        expect(html).not.toContain('<script>alert');
        expect(html).not.toContain('<img src=x');
        expect(html).not.toContain('onerror=alert(1)>');
        expect(html).not.toContain('</style><script>');
        expect(html).not.toContain('<svg onload');
        expect(html).not.toContain('\u0000');
        expect(html).not.toContain('\u001b');
        // Only one </style>, ours; only our <svg> charts.
        expect(html.match(/<\/style>/g)).toHaveLength(1);
        expect(all.filter((t) => t.name === 'svg' && !t.closing).every((t) => t.attrs.some((a) => a.name === 'class' && a.value!.startsWith('chart ')))).toBe(
          true,
        );
      });

      it('shows the summary: target, mode, status, dates, duration, counts', () => {
        const text = textContent(html);
        expect(text).toContain(report.url);
        expect(text).toContain(report.scan_id);
        expect(text).toContain(report.status);
        expect(text).toContain(`${report.created_at.slice(0, 19).replace('T', ' ')} UTC`);
        if (report.completed_at) expect(text).toContain(`${report.completed_at.slice(0, 19).replace('T', ' ')} UTC`);
        expect(html).toContain(`data-count="total">${report.total}<`);
        expect(html).toContain(`data-count="passed">${report.passed}<`);
        expect(html).toContain(`data-count="failed">${report.failed}<`);
      });

      it('severity numbers match the failed tasks per severity, in the table and the chart', () => {
        for (const s of SEVERITIES) {
          const fromTasks = report.tasks.filter((t) => t.status === 'failed' && t.severity === s).length;
          expect(report.severity_counts[s]).toBe(fromTasks);
          expect(html).toContain(`<tr data-severity="${s}"><td><span class="sev sev-${s}">`);
          expect(html).toMatch(new RegExp(`<tr data-severity="${s}">.*?<td class="num" data-count="${fromTasks}">${fromTasks}</td>`));
          expect(html).toContain(`<g data-severity="${s}" data-count="${fromTasks}">`);
        }
        const svgTitle = html.match(/<svg class="chart severity-chart"[\s\S]*?<title>([^<]*)<\/title>/)![1]!;
        expect(svgTitle).toBe(
          `Failed security tasks by severity: ${SEVERITIES.map((s) => `${s[0]!.toUpperCase()}${s.slice(1)} ${report.severity_counts[s]}`).join(', ')}`,
        );
        expect(html).toContain(`<title>Tasks: ${report.passed} passed, ${report.failed} failed</title>`);
      });

      it('lists every task once, grouped by severity (critical first), failed before passed', () => {
        const rows = [...html.matchAll(/<tr class="task task-(passed|failed)" data-task-id="([^"]*)" data-status="[^"]*"(?: data-severity="([^"]*)")?>/g)];
        expect(rows.map((r) => r[2]).sort()).toEqual(report.tasks.map((t) => escapeHtml(t.task_id)).sort());
        const rank = (s: string | undefined) => (s ? SEVERITIES.indexOf(s as never) : SEVERITIES.length);
        for (let i = 1; i < rows.length; i++) {
          const [prev, cur] = [rows[i - 1]!, rows[i]!];
          expect(rank(prev[3])).toBeLessThanOrEqual(rank(cur[3]));
          if (rank(prev[3]) === rank(cur[3])) expect(!(prev[1] === 'passed' && cur[1] === 'failed')).toBe(true);
        }
        // Evidence is collapsible and preformatted.
        const withEvidence = report.tasks.filter((t) => t.evidence).length;
        expect(html.match(/<details class="evidence"><summary>Evidence<\/summary><pre>/g) ?? []).toHaveLength(withEvidence);
      });
    });
  }

  it('hostile task names, evidence, endpoints, parameters and URLs come out as inert text', () => {
    const report = securityReport();
    report.url = `https://x.example/${HOSTILE.script}`;
    report.spec_url = `javascript:${HOSTILE.attribute}`;
    const html = render(report);
    expect(html).toContain(escapeHtml(HOSTILE.script));
    expect(html).toContain('&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;');
    expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&#39; onmouseover=&#39;alert(1)');
    expect(html).not.toMatch(/<script|<img|<svg onload|<link/i);
    // The text a reader sees is the original, character for character (controls aside).
    const text = textContent(html);
    const hostile = report.tasks.find((t) => t.task_id === 'tsk_20')!;
    expect(text).toContain(hostile.name);
    expect(text).toContain(hostile.endpoint);
    expect(text).toContain(hostile.parameter);
    expect(text).toContain(HOSTILE.styleBreak);
    expect(text).toContain(HOSTILE.remote);
    expect(text).toContain(HOSTILE.cssUrl);
    expect(text).toContain(HOSTILE.comment);
    expect(text).toContain('nul\uFFFDbel\uFFFDesc\uFFFD');
    expect(text).toContain(report.url);
    expect(text).toContain(report.spec_url);
    // <title> is escaped too (the scan id goes there).
    report.scan_id = '</title><script>alert(5)</script>';
    expect(render(report)).not.toContain('<script>alert(5)');
  });

  it('escapeHtml covers the five HTML specials and control characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    expect(escapeHtml('tab\tlf\ncr\r')).toBe('tab\tlf\ncr\r');
    expect(escapeHtml('a\u0000b\u007f')).toBe('a\uFFFDb\uFFFD');
    expect(escapeHtml(null)).toBe('');
    expect(escapeHtml(42)).toBe('42');
  });

  it('the threshold banner says whether fail_on was reached', () => {
    expect(render(ALL.security)).toContain('data-threshold="reached"');
    const notReached = { ...securityReport(), fail_on: 'critical' as const, threshold_reached: false };
    expect(render(notReached)).toContain('data-threshold="not-reached"');
    expect(render(ALL.failed)).toContain('data-threshold="none"');
  });

  it('functional sections appear only when the report has them', () => {
    const ids = ['visual-regression', 'accessibility', 'performance'];
    const full = render(ALL.full);
    for (const id of ids) {
      expect(full).toContain(`<section id="${id}"`);
      expect(full).toContain(`href="#${id}"`);
    }
    for (const report of [ALL.security, ALL.failed, { ...fullReport(), functional: null }]) {
      const html = render(report);
      for (const id of ids) {
        expect(html).not.toContain(`id="${id}"`);
        expect(html).not.toContain(`href="#${id}"`);
      }
    }
  });

  it('functional sections show visual diffs, accessibility violations and performance metrics', () => {
    const report = fullReport();
    const functional = report.functional!;
    const html = render(report);
    const text = textContent(html);
    // Visual regression: per page diff % and the detected flag; no screenshot links at all.
    const visualRows = [...html.matchAll(/<tr data-diff="(true|false)">/g)].map((m) => m[1]);
    expect(visualRows).toEqual(functional.visual_regression.pages.map((p) => String(p.diff_detected)));
    expect(text).toContain('7.31%');
    expect(text).toContain('0.02%');
    expect(html).toContain('data-count="diffs">1<');
    // Each page's largest changed regions (box and changed pixels), and an unstable page's mask hint, escaped.
    expect(text).toContain('1200x400 at 40,620: 70,000 px');
    expect(text).toContain('116x33 at 465,104: 1,108 px');
    expect([...html.matchAll(/data-unstable="true"/g)]).toHaveLength(1);
    expect(text).toContain(`mask it with options.mask: ["#carousel${HOSTILE.script}"]`);
    expect(html).not.toContain('/artifacts/');
    expect(html).not.toContain('sig=');
    // Accessibility: score, each violation with its help URL as text, sorted by impact.
    expect(html).toContain('data-score="accessibility">82.5<');
    expect([...html.matchAll(/<tr data-impact="([a-z]+)"/g)].map((m) => m[1])).toEqual(['critical', 'serious', 'moderate']);
    for (const v of functional.accessibility.violations) {
      expect(text).toContain(v.rule);
      expect(text).toContain(v.help_url);
      expect(text).toContain(v.description);
    }
    expect(html).not.toMatch(/href="(https?|javascript):/);
    // Performance: per page score, rating and metrics.
    expect(html).toContain('data-score="performance">71<');
    expect([...html.matchAll(/<tr data-rating="([a-z-]+)">/g)].map((m) => m[1])).toEqual(['good', 'poor']);
    expect(text).toContain('4,380 ms');
    expect(text).toContain('0.270');
    // Functional tasks (no severity) are listed with their errors open.
    expect(html).toContain('id="severity-none"');
    expect(text).toContain('7.31% of pixels differ (threshold 0.5%)');
  });

  it('a failed scan shows its failure reason and that no task ran', () => {
    const report = failedReport();
    const html = render(report);
    const text = textContent(html);
    expect(html).toContain('class="banner bad failure-reason"');
    expect(text).toContain(report.failure_reason);
    expect(html).not.toContain('<script>alert');
    expect(text).toContain('This scan has no tasks: it failed before any ran.');
    expect(html).not.toContain('<table class="tasks">');
  });

  describe('security section', () => {
    const report = securityReport();
    const security = securityOutcome();
    const html = render(report);
    const text = textContent(html);

    it('puts the warnings in a banner above the summary, escaped', () => {
      const banner = html.indexOf('class="banner warn security-warnings"');
      expect(banner).toBeGreaterThan(html.indexOf('</header>'));
      expect(banner).toBeLessThan(html.indexOf('id="summary"'));
      expect(html).toContain(`data-warnings="${security.warnings.length}"`);
      for (const warning of security.warnings) expect(text).toContain(warning);
      expect(html).toContain('<li>3 of 29 operations answered 2xx: is the base URL right?</li>');
      expect(html).not.toContain('<script>alert');
    });

    it('explains each failed finding by its check: title, description, risk, remediation, OWASP and CWE with links as text', () => {
      const row = html.slice(html.indexOf('data-task-id="tsk_01"'), html.indexOf('</tr>', html.indexOf('data-task-id="tsk_01"')));
      const bola = security.checks.find((c) => c.id === 'bola')!;
      expect(row).toContain('<details class="check-info" data-check="bola">');
      for (const part of [
        bola.title,
        bola.description,
        bola.risk,
        bola.remediation,
        bola.owasp.id,
        bola.owasp.url,
        bola.cwe.id,
        bola.cwe.url,
        bola.references[0]!.title,
        bola.references[0]!.url,
      ]) {
        expect(textContent(row)).toContain(part);
      }
      expect(row).toContain('<dd class="remediation">Check on every request that the caller may act on the object the id names.</dd>');
      // The hostile remediation of sqli is text; a javascript: reference is text, never a link.
      const sqli = html.slice(html.indexOf('data-task-id="tsk_02"'), html.indexOf('</tr>', html.indexOf('data-task-id="tsk_02"')));
      expect(textContent(sqli)).toContain(HOSTILE.styleBreak);
      expect(textContent(sqli)).toContain('javascript:alert(1)');
      expect(html).not.toMatch(/href="(https?|javascript):/);
      // Passed tasks name their check but carry no remediation block.
      const passed = html.slice(html.indexOf('data-task-id="tsk_13"'), html.indexOf('</tr>', html.indexOf('data-task-id="tsk_13"')));
      expect(passed).not.toContain('class="check-info"');
      expect(passed).toContain('Broken object level authorization</a>');
    });

    it('lists every affected operation of a finding of the whole target, and marks invented values', () => {
      const row = html.slice(html.indexOf('data-task-id="tsk_21"'), html.indexOf('</tr>', html.indexOf('data-task-id="tsk_21"')));
      const task = report.tasks.find((t) => t.task_id === 'tsk_21')!;
      expect(row).toContain('4 operations affected');
      expect([...row.matchAll(/<li><code>([^<]*)<\/code><\/li>/g)].map((m) => m[1])).toEqual(task.endpoints!.map((e) => escapeHtml(e)));
      const invented = html.slice(html.indexOf('data-task-id="tsk_13"'), html.indexOf('</tr>', html.indexOf('data-task-id="tsk_13"')));
      expect(invented).toContain('<span class="badge invented"');
      expect(textContent(invented)).toContain('the verdict rests on invented values');
      expect(html.match(/class="badge invented"/g)).toHaveLength(1);
    });

    it('has a coverage section: per operation statuses, 2xx per identity, skipped and invented; per check ran and not run', () => {
      expect(html).toContain('<section id="coverage"');
      expect(html).toContain('href="#coverage"');
      expect(html).toContain('data-count="operations-2xx">3 / 29<');
      expect(html).toContain('data-count="resources-created">2<');
      expect(html).toContain('data-count="resources-deleted">1<');
      const ops = [...html.matchAll(/<tr data-endpoint="([^"]*)"[^>]*>([\s\S]*?)<\/tr>/g)];
      expect(ops.map((m) => m[1])).toEqual(security.coverage.operations.map((o) => escapeHtml(o.endpoint)));
      const [orders, invoices, reset, echo] = ops.map((m) => m[2]!);
      expect(orders).toContain('200, 404');
      expect([...orders!.matchAll(/data-reached="(\w+)"/g)].map((m) => m[1])).toEqual(['yes', 'yes', 'no']);
      expect([...reset!.matchAll(/data-reached="(\w+)"/g)].map((m) => m[1])).toEqual(['no', 'none', 'no']);
      expect(reset).toContain('skipped: safe mode: destructive');
      expect(invoices).toContain('invented values only');
      expect(echo).toContain('no response, 500');
      const checkRows = [...html.matchAll(/<tr data-check="([^"]*)" data-ran="(\d+)">([\s\S]*?)<\/tr>/g)];
      expect(checkRows.map((m) => [m[1], Number(m[2])])).toEqual(security.coverage.checks.map((c) => [c.check, c.ran]));
      expect(checkRows[0]![3]).toContain('data-reason="no resource found"');
      expect(textContent(checkRows[0]![3]!)).toContain('GET /users/{name}');
      expect(textContent(checkRows[1]![3]!)).toContain('no JWT seen: 29 operations');
    });

    it('has a checks catalogue with an entry per check that findings link to', () => {
      expect(html).toContain('<section id="checks"');
      const entries = [...html.matchAll(/<section class="check-entry" id="(check-\d+)" data-check="([^"]*)">/g)];
      expect(entries.map((m) => m[2])).toEqual(security.checks.map((c) => c.id));
      for (const [, anchor] of entries) expect(html).toContain(`href="#${anchor}"`);
      for (const check of security.checks) expect(text).toContain(check.remediation);
    });

    it('old results without a security section render as before: no warnings, coverage or checks', () => {
      const old = render({ ...securityReport(), security: null });
      for (const marker of ['security-warnings', 'id="coverage"', 'id="checks"', 'href="#coverage"', 'class="check-info"']) expect(old).not.toContain(marker);
      expect(old).toContain('<span>check <code>bola</code></span>');
    });
  });

  describe('findings by check, collapsed passed tasks, images, metrics and budgets', () => {
    it('groups failed security tasks by check with every affected operation, description and remediation', () => {
      const report = securityReport();
      const html = render(report);
      const groups = [
        ...html.matchAll(
          /<section class="finding-group[^"]*" data-check="([^"]*)"(?: data-severity="([a-z]+)")? data-findings="(\d+)" data-operations="(\d+)">([\s\S]*?)<\/section>/g,
        ),
      ];
      const failedChecks = new Set(report.tasks.filter((t) => t.status === 'failed').map((t) => t.check));
      expect(groups.map((g) => g[1])).toHaveLength(failedChecks.size);
      expect(new Set(groups.map((g) => g[1]))).toEqual(failedChecks);
      // Worst first.
      const ranks = groups.map((g) => SEVERITIES.indexOf(g[2] as never));
      expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
      // The headers check: one group, its finding on every operation lists them all.
      const headers = groups.find((g) => g[1] === 'headers')!;
      expect(headers[3]).toBe('1');
      expect(headers[4]).toBe('4');
      const info = securityOutcome().checks.find((c) => c.id === 'headers')!;
      expect(textContent(headers[5]!)).toContain(info.description);
      expect(headers[5]).toContain(`<dd class="remediation">${escapeHtml(info.remediation)}</dd>`);
      // Two failed tasks of one check are one group with two rows.
      report.tasks.push({ ...report.tasks.find((t) => t.task_id === 'tsk_01')!, task_id: 'tsk_01b', endpoint: 'GET /carts/{id}', severity: 'high' });
      const two = render(report).match(
        /<section class="finding-group[^"]*" data-check="bola" data-severity="critical" data-findings="2" data-operations="2">([\s\S]*?)<\/section>/,
      )!;
      expect(two[1]!.match(/<tr class="finding"/g)).toHaveLength(2);
      expect(textContent(two[1]!)).toContain('GET /carts/{id}');
      expect(html).toContain('href="#findings"');
    });

    it('collapses passed tasks in <details> under each severity', () => {
      const report = securityReport();
      const html = render(report);
      const passed = report.tasks.filter((t) => t.status === 'passed');
      const blocks = [...html.matchAll(/<details class="passed-tasks" data-passed="(\d+)">([\s\S]*?)<\/details>\n<\/section>/g)];
      expect(blocks.reduce((n, b) => n + Number(b[1]), 0)).toBe(passed.length);
      for (const b of blocks) expect(b[2]!.match(/data-status="failed"/g)).toBeNull();
      for (const t of passed) expect(blocks.some((b) => b[2]!.includes(`data-task-id="${t.task_id}"`))).toBe(true);
      expect(html).not.toMatch(/<details class="passed-tasks"[^>]* open/);
    });

    it('embeds before, after and diff images as data: URIs with a slider; signed links are never loaded', () => {
      const report = embeddedFullReport();
      const html = render(report);
      const cart = report.functional!.visual_regression.pages[1]!;
      expect(html).toContain(`<img class="before" src="${cart.screenshot_before}"`);
      expect(html).toContain(`<img class="after" src="${cart.screenshot_after}"`);
      expect(html).toContain(`<img class="shot diff" src="${cart.diff_image}"`);
      expect(html.match(/<input type="range" class="compare-slider"/g)).toHaveLength(2);
      // The page whose baseline this scan set shows one screenshot, no slider; pages without a diff are collapsed.
      expect(html.match(/<details class="visual-page" data-page-diff="false">/g)).toHaveLength(2);
      expect(html.match(/<section class="visual-page" data-page-diff="true">/g)).toHaveLength(1);
      // Signed links (the non-embedded report) are shown nowhere and loaded never.
      const linked = render(fullReport());
      expect(linked).not.toContain('<img');
      expect(linked).toContain('data-images="none"');
      expect(linked).not.toContain('sig=');
    });

    it('shows accessibility selectors and HTML snippets escaped', () => {
      const html = render(fullReport());
      expect(html).toContain(`<code class="target">${escapeHtml(`#chat >>> img[title="${HOSTILE.singleQuote}"]`)}</code>`);
      expect(html).toContain(`<code class="snippet">${escapeHtml(`<img class="product" src="/p.jpg" data-x="${HOSTILE.attribute}">`)}</code>`);
      expect(html).not.toContain('<img class="product"');
    });

    it('rates each metric and shows budgets only when the results carry them', () => {
      const report = fullReport();
      const html = render(report);
      expect(html).toContain('data-metric="lcp_ms" data-rating="poor"');
      expect(html).toContain('data-metric="cls" data-rating="poor"');
      expect(html).toContain('data-metric="lcp_ms" data-rating="good"');
      expect(html).toContain('data-metric="ttfb_ms" data-rating="needs-improvement"');
      expect(html).not.toContain('<th>Budgets</th>');
      expect(textContent(html)).toContain('No performance budgets were set for this scan.');
      const page = report.functional!.performance.pages[1]! as unknown as Record<string, unknown>;
      page.budgets = [
        { metric: 'lcp', limit: 2500, kind: 'max', actual: 4380, level: 'error', passed: false },
        { metric: 'performance', limit: 50, kind: 'min', actual: 54, level: 'warn', passed: true },
        { metric: 'performance', limit: 60, kind: 'min', actual: 54, level: 'warn', passed: false },
      ];
      const withBudgets = render(report);
      expect(withBudgets).toContain('<th>Budgets</th>');
      expect(withBudgets).toContain('<div class="budget-fail" data-budget="lcp" data-budget-passed="false">lcp: 4,380 / ≤ 2,500 over</div>');
      expect(withBudgets).toContain('<div class="budget-pass" data-budget="performance" data-budget-passed="true">performance: 54 / ≥ 50 within</div>');
      expect(withBudgets).toContain(
        '<div class="budget-warn" data-budget="performance" data-budget-passed="false">performance: 54 / ≥ 60 under (warning)</div>',
      );
    });
  });

  it('is deterministic', () => {
    expect(render(fullReport())).toBe(render(fullReport()));
  });
});
