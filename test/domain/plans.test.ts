import { describe, expect, it } from 'vitest';
import { PLANS, cheapestPlanWith, isPlan, planHasFeature, planRules, type Feature, type Plan } from '../../src/domain/plans.js';

const FEATURES: readonly Feature[] = ['functional', 'security', 'detailed_reports', 'advanced_accessibility_profiles', 'outbound_webhooks'];

describe('plans', () => {
  it('are ordered from the cheapest', () => {
    expect(PLANS).toEqual(['free', 'pro', 'team', 'enterprise']);
  });

  it.each([
    ['free', ['functional']],
    ['pro', ['functional', 'security', 'detailed_reports']],
    ['team', FEATURES],
    ['enterprise', FEATURES],
  ] as const)('%s has %j', (plan, features: readonly Feature[]) => {
    for (const feature of FEATURES) expect(planHasFeature(plan, feature), `${plan} ${feature}`).toBe(features.includes(feature));
  });

  it.each([
    // plan, functional quota, security quota, requests per minute, scans at once, live sockets
    ['free', 50, 0, 10, 1, 5],
    ['pro', 500, 100, 60, 3, 20],
    ['team', 2000, 500, 200, 10, 50],
    ['enterprise', null, null, 1000, 25, 200],
  ] as const)('%s: quotas %s/%s, %s requests a minute, %s scans at once, %s live sockets', (plan, functional, security, rate, concurrent, sockets) => {
    expect(planRules(plan)).toMatchObject({
      functionalQuota: functional,
      securityQuota: security,
      rateLimitPerMinute: rate,
      concurrentScans: concurrent,
      liveSockets: sockets,
    });
  });

  it('a higher plan never has less than a lower one', () => {
    const atLeast = (a: number | null, b: number | null) => a === null || (b !== null && a >= b);
    for (let i = 1; i < PLANS.length; i++) {
      const [lower, higher] = [planRules(PLANS[i - 1]!), planRules(PLANS[i]!)];
      expect(lower.features.every((f) => higher.features.includes(f))).toBe(true);
      expect(atLeast(higher.functionalQuota, lower.functionalQuota) && atLeast(higher.securityQuota, lower.securityQuota)).toBe(true);
      expect(higher.rateLimitPerMinute).toBeGreaterThan(lower.rateLimitPerMinute);
      expect(higher.concurrentScans).toBeGreaterThan(lower.concurrentScans);
      expect(higher.liveSockets).toBeGreaterThan(lower.liveSockets);
    }
  });

  it.each([
    ['functional', 'free'],
    ['security', 'pro'],
    ['detailed_reports', 'pro'],
    ['advanced_accessibility_profiles', 'team'],
    ['outbound_webhooks', 'team'],
  ] as const)('the cheapest plan with %s is %s', (feature, plan) => {
    expect(cheapestPlanWith(feature)).toBe(plan);
  });

  it.each([
    ['free', true],
    ['enterprise', true],
    ['Pro', false],
    ['basic', false],
    ['', false],
    ['constructor', false],
    [undefined, false],
    [1, false],
  ] as const)('isPlan(%j) is %s', (value, expected) => {
    expect(isPlan(value)).toBe(expected);
    if (expected) expect(planRules(value as Plan)).toBeDefined();
  });
});
