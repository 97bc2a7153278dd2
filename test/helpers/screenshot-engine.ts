import type { EngineOutcome, VisualPage } from '../../src/domain/scan.js';
import type { EngineContext, ScanEngine } from '../../src/engines/engine.js';
import { baselineKey } from '../../src/engines/functional/visual/page-key.js';

/**
 * A functional engine that "screenshots" each page of options.pages: one artifact per page whose bytes
 * name the scan and the page, and visual results keyed as the real engine keys them. A scan of a URL
 * with ?changed=<page> reports a diff on that page (repeatable).
 */
export function screenshotEngine(seen: EngineContext[], gate: { held?: Promise<void> }): ScanEngine {
  return {
    kind: 'functional',
    async run(ctx): Promise<EngineOutcome> {
      seen.push(ctx);
      // A scan of a URL with ?hold stays running until the test lets it go.
      if (new URL(ctx.input.url).searchParams.has('hold')) await gate.held;
      const changed = new URL(ctx.input.url).searchParams.getAll('changed');
      const visual: VisualPage[] = [];
      for (const page of ctx.input.options.pages ?? ['/']) {
        const url = new URL(page, ctx.input.url).href;
        const key = baselineKey(url, ctx.input.url, ctx.input.options);
        const shot = await ctx.artifacts.put(ctx.tenantId, Buffer.from(`png of ${url} by ${ctx.scanId}`), 'image/png');
        visual.push({
          page_url: url,
          page_key: key.page_key,
          baseline_branch: key.branch,
          viewport: ctx.input.options.viewport,
          diff_detected: changed.includes(page),
          diff_percent: changed.includes(page) ? 2.5 : 0,
          baseline_artifact: shot,
          current_artifact: shot,
          diff_artifact: null,
          baseline_created: !changed.includes(page),
        });
      }
      const performance = { performance_score: 100, pages: [] };
      const accessibility = { wcag_level: 'wcag21aa', compliance_score: 100, violations: [], pages: [] };
      return { tasks: [], agent_count: 1, functional: { diff_threshold_percent: 0.5, visual, accessibility, performance } as never };
    },
  };
}
