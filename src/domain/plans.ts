/** Plans, their features and limits: the rules of DESIGN.md, with no I/O. */

export const PLANS = ['free', 'pro', 'team', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];
/** The plans sold through the payment provider. */
export type PaidPlan = Exclude<Plan, 'free'>;

export type Feature = 'functional' | 'security' | 'detailed_reports' | 'advanced_accessibility_profiles' | 'outbound_webhooks' | 'sso';

interface PlanRules {
  features: readonly Feature[];
  /** Per period; null = unlimited. */
  functionalQuota: number | null;
  securityQuota: number | null;
  /** New API specifications scanned (security or full) per period; null = unlimited. */
  specificationQuota: number | null;
  /** Requests per minute on the hosted service. */
  rateLimitPerMinute: number;
  concurrentScans: number;
  /** Live-event sockets open at once per tenant. */
  liveSockets: number;
}

const RULES: Record<Plan, PlanRules> = {
  free: {
    features: ['functional'],
    functionalQuota: 50,
    securityQuota: 0,
    specificationQuota: 1,
    rateLimitPerMinute: 10,
    concurrentScans: 1,
    liveSockets: 5,
  },
  pro: {
    features: ['functional', 'security', 'detailed_reports'],
    functionalQuota: 500,
    securityQuota: 100,
    specificationQuota: 5,
    rateLimitPerMinute: 60,
    concurrentScans: 3,
    liveSockets: 20,
  },
  team: {
    features: ['functional', 'security', 'detailed_reports', 'advanced_accessibility_profiles', 'outbound_webhooks'],
    functionalQuota: 2000,
    securityQuota: 500,
    specificationQuota: null,
    rateLimitPerMinute: 200,
    concurrentScans: 10,
    liveSockets: 50,
  },
  enterprise: {
    features: ['functional', 'security', 'detailed_reports', 'advanced_accessibility_profiles', 'outbound_webhooks', 'sso'],
    functionalQuota: null,
    securityQuota: null,
    specificationQuota: null,
    rateLimitPerMinute: 1000,
    concurrentScans: 25,
    liveSockets: 200,
  },
};

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && (PLANS as readonly string[]).includes(value);
}

export function planRules(plan: Plan): PlanRules {
  return RULES[plan];
}

export function planHasFeature(plan: Plan, feature: Feature): boolean {
  return RULES[plan].features.includes(feature);
}

/** The cheapest plan that has `feature`, for upgrade hints. */
export function cheapestPlanWith(feature: Feature): Plan {
  return PLANS.find((p) => planHasFeature(p, feature)) ?? 'enterprise';
}
