/** The accessibility options of a scan request: best practices and per-rule enable/disable, validated against axe's rule ids. */
import { describe, expect, it } from 'vitest';
import { axeRunOptions } from '../../../src/engines/functional/accessibility/rules.js';
import { ApiError } from '../../../src/http/errors.js';
import { checkScanRequestSchema, normalizeScanRequest } from '../../../src/http/scan-request.js';
import type { ScanRequest } from '../../../src/http/schemas/scan-request.js';

const LIMITS = { specMaxBytes: 1 << 20, specMaxOperations: 1000 };
const normalise = (options: Record<string, unknown>) =>
  normalizeScanRequest({ url: 'https://example.com', mode: 'functional', options } as ScanRequest, LIMITS);

function refusal(f: () => unknown): ApiError {
  try {
    f();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('accessibility options', () => {
  it('default: no best practices and no per-rule choice', () => {
    const o = normalise({}).options;
    expect(o.accessibility_best_practices).toBe(false);
    expect(o.accessibility_rules).toBeUndefined();
    expect(axeRunOptions(o)).toEqual({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      rules: {},
      resultTypes: ['violations', 'incomplete'],
    });
  });

  it('are kept and become axe run options: best-practice tag, rules enabled outside the tags, rules disabled', () => {
    const o = normalise({
      accessibility_profile: 'wcag22aa',
      accessibility_best_practices: true,
      accessibility_rules: { enable: ['region'], disable: ['color-contrast'] },
    }).options;
    expect(o.accessibility_rules).toEqual({ enable: ['region'], disable: ['color-contrast'] });
    const run = axeRunOptions(o);
    expect(run.runOnly.values).toEqual(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']);
    expect(run.rules).toEqual({ region: { enabled: true }, 'color-contrast': { enabled: false } });
  });

  it('an unknown rule id is refused with 422 naming the field', () => {
    const err = refusal(() => normalise({ accessibility_rules: { enable: ['image-alt', 'imag-alt'], disable: ['no-such-rule'] } }));
    expect(err.status).toBe(422);
    expect(err.code).toBe('VALIDATION_ERROR');
    expect((err.extra.fields as Array<{ field: string }>).map((f) => f.field)).toEqual([
      'options.accessibility_rules.enable.1',
      'options.accessibility_rules.disable.0',
    ]);
    expect(err.message).toContain('imag-alt');
  });

  it('the schema refuses other keys and non-boolean best practices', () => {
    for (const options of [{ accessibility_rules: { only: ['image-alt'] } }, { accessibility_best_practices: 'yes' }]) {
      expect(refusal(() => checkScanRequestSchema({ url: 'https://example.com', options })).status).toBe(422);
    }
  });
});
