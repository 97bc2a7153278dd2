import { describe, expect, it } from 'vitest';
import {
  admissionVerdict,
  ConcurrentLimitError,
  FeatureNotAvailableError,
  QuotaExceededError,
  type AdmissionFacts,
  type AdmissionRequest,
} from '../../src/domain/admission.js';

const RESET = '2026-12-01T00:00:00.000Z';
const facts = (over: Partial<AdmissionFacts>): AdmissionFacts => ({
  plan: 'pro',
  used: { functional: 0, security: 0 },
  resetDate: RESET,
  active: 0,
  concurrentLimit: 3,
  ...over,
});
const request = (mode: AdmissionRequest['mode'], accessibilityProfile: AdmissionRequest['accessibilityProfile'] = 'wcag21aa'): AdmissionRequest => ({
  mode,
  accessibilityProfile,
});

describe('admission', () => {
  it.each([
    ['free, functional', request('functional'), facts({ plan: 'free', concurrentLimit: 1 }), ['functional']],
    ['pro, security', request('security'), facts({}), ['security']],
    ['pro, full: one of each quota', request('full'), facts({}), ['functional', 'security']],
    ['team, functional with an advanced accessibility profile', request('functional', 'wcag22aa'), facts({ plan: 'team' }), ['functional']],
    ['pro, security ignores the accessibility profile', request('security', 'section508'), facts({}), ['security']],
    ['pro, one quota left', request('functional'), facts({ used: { functional: 499, security: 100 } }), ['functional']],
    [
      'enterprise: no quota, however much is used',
      request('full'),
      facts({ plan: 'enterprise', used: { functional: 10 ** 6, security: 10 ** 6 }, concurrentLimit: 25 }),
      ['functional', 'security'],
    ],
    ['one below the concurrent limit', request('functional'), facts({ active: 2 }), ['functional']],
  ] as const)('admits: %s', (_name, req, state, quotas) => {
    expect(admissionVerdict(req, state)).toEqual({ admitted: true, quotas });
  });

  it.each([
    ['free, security', request('security'), facts({ plan: 'free' }), new FeatureNotAvailableError('security', 'Security scans are not part of the free plan')],
    [
      'free, full: the missing feature first',
      request('full'),
      facts({ plan: 'free' }),
      new FeatureNotAvailableError('security', 'Security scans are not part of the free plan'),
    ],
    [
      'pro, advanced accessibility profile',
      request('full', 'section508'),
      facts({}),
      new FeatureNotAvailableError('advanced_accessibility_profiles', 'The section508 accessibility profile needs the team plan or above'),
    ],
    [
      'pro, functional quota used up',
      request('functional'),
      facts({ used: { functional: 500, security: 0 } }),
      new QuotaExceededError('functional', 500, RESET),
    ],
    [
      'pro, full with the security quota used up',
      request('full'),
      facts({ used: { functional: 0, security: 100 } }),
      new QuotaExceededError('security', 100, RESET),
    ],
    ['pro, at the concurrent limit', request('security'), facts({ active: 3 }), new ConcurrentLimitError(3)],
    ['free, over the concurrent limit', request('functional'), facts({ plan: 'free', active: 2, concurrentLimit: 1 }), new ConcurrentLimitError(1)],
    // The API's order: feature before quota before concurrency.
    [
      'feature before quota and concurrency',
      request('security'),
      facts({ plan: 'free', used: { functional: 50, security: 0 }, active: 1, concurrentLimit: 1 }),
      new FeatureNotAvailableError('security', 'Security scans are not part of the free plan'),
    ],
    [
      'quota before concurrency',
      request('functional'),
      facts({ used: { functional: 500, security: 0 }, active: 3 }),
      new QuotaExceededError('functional', 500, RESET),
    ],
  ] as const)('refuses: %s', (_name, req, state, expected) => {
    const verdict = admissionVerdict(req, state);
    expect(verdict.admitted).toBe(false);
    if (verdict.admitted) return;
    expect(verdict.refusal).toBeInstanceOf(expected.constructor);
    expect(verdict.refusal.message).toBe(expected.message);
    expect({ ...verdict.refusal }).toEqual({ ...expected });
  });

  it('messages read as the API returns them', () => {
    expect(new QuotaExceededError('functional', 50, RESET).message).toBe(`Functional scan quota of 50 per period is used up; it resets on ${RESET}`);
    expect(new ConcurrentLimitError(1).message).toBe(
      '1 scan is already queued or running for this tenant, the most the plan allows at once; start this one when one finishes',
    );
    expect(new ConcurrentLimitError(3).message).toMatch(/^3 scans are already queued/);
  });
});

describe('admission: the API-specification quota', () => {
  const withSpec = (mode: AdmissionRequest['mode'], newSpecification: boolean): AdmissionRequest => ({
    mode,
    accessibilityProfile: 'wcag21aa',
    newSpecification,
  });
  it.each([
    [
      'pro, a new specification takes one',
      withSpec('security', true),
      facts({ used: { functional: 0, security: 0, specifications: 4 } }),
      ['security', 'specifications'],
    ],
    ['pro, full with a new specification', withSpec('full', true), facts({}), ['functional', 'security', 'specifications']],
    [
      'pro, a known specification is free of the quota even when it is used up',
      withSpec('security', false),
      facts({ used: { functional: 0, security: 0, specifications: 5 } }),
      ['security'],
    ],
    ['a functional scan never takes one', withSpec('functional', true), facts({ used: { functional: 0, security: 0, specifications: 5 } }), ['functional']],
    [
      'team: unlimited specifications',
      withSpec('security', true),
      facts({ plan: 'team', used: { functional: 0, security: 0, specifications: 10 ** 6 } }),
      ['security', 'specifications'],
    ],
  ] as const)('admits: %s', (_name, req, state, quotas) => {
    expect(admissionVerdict(req, state)).toEqual({ admitted: true, quotas });
  });

  it('refuses a new specification over the limit with a message naming the specification limit', () => {
    const verdict = admissionVerdict(withSpec('security', true), facts({ used: { functional: 0, security: 3, specifications: 5 } }));
    expect(verdict).toEqual({ admitted: false, refusal: new QuotaExceededError('specifications', 5, RESET) });
    if (verdict.admitted) throw new Error('admitted');
    expect(verdict.refusal.message).toContain('API specification quota of 5 new specifications per period is used up');
    expect(verdict.refusal.message).toContain(RESET);
  });
});
