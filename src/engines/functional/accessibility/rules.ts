/**
 * The axe-core that runs: the package this project declares (node_modules/axe-core), never the copy
 * a wrapper bundles. Its source for injection into pages, its version, its rule ids for validating
 * `options.accessibility_rules`, and the run options a profile asks for.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ScanOptions } from '../../../domain/scan.js';
import { PROFILE_TAGS } from './score.js';

const require = createRequire(import.meta.url);

let source: string | undefined;
/** axe.min.js of the declared axe-core, read once. */
export function axeSource(): string {
  source ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  return source;
}

interface AxeModule {
  version: string;
  getRules(tags?: string[]): Array<{ ruleId: string }>;
}
let axeModule: AxeModule | undefined;
function axe(): AxeModule {
  axeModule ??= require('axe-core') as AxeModule;
  return axeModule;
}

/** The declared axe-core's version (what `accessibility.engine.version` reports when it ran). */
export function axeVersion(): string {
  return axe().version;
}

/** Every rule id axe-core knows. */
export function axeRuleIds(): ReadonlySet<string> {
  return new Set(
    axe()
      .getRules()
      .map((r) => r.ruleId),
  );
}

/** The ids among `ids` that axe-core has no rule for. */
export function unknownAxeRules(ids: readonly string[]): string[] {
  const known = axeRuleIds();
  return ids.filter((id) => !known.has(id));
}

/** Nodes listed per rule (with a count of all of them): results stay small on large pages. */
export const MAX_NODES_PER_RULE = 20;

/** The accessibility part of the scan options. */
export type AccessibilitySettings = Pick<ScanOptions, 'accessibility_profile' | 'accessibility_best_practices' | 'accessibility_rules'>;

/**
 * axe.run options for a profile: only the profile's tags (plus `best-practice` when asked), each
 * rule of `accessibility_rules.enable` run even outside them, those of `.disable` never. Only
 * violations and needs-review nodes get axe's costly selectors and snippets (`resultTypes`).
 */
export function axeRunOptions(s: AccessibilitySettings): {
  runOnly: { type: 'tag'; values: string[] };
  rules: Record<string, { enabled: boolean }>;
  resultTypes: Array<'violations' | 'incomplete'>;
} {
  const tags: string[] = [...PROFILE_TAGS[s.accessibility_profile]];
  if (s.accessibility_best_practices) tags.push('best-practice');
  const rules: Record<string, { enabled: boolean }> = {};
  for (const id of s.accessibility_rules?.enable ?? []) rules[id] = { enabled: true };
  for (const id of s.accessibility_rules?.disable ?? []) rules[id] = { enabled: false };
  return { runOnly: { type: 'tag', values: tags }, rules, resultTypes: ['violations', 'incomplete'] };
}
