/**
 * Whether a tenant may start a scan: pure rules, no I/O. The store gathers the facts inside the
 * admission transaction (the tenant's plan under lock, the current period's usage, the scans already
 * queued or running) and applies the verdict.
 */
import { planHasFeature, type Feature, type Plan } from './plans.js';
import type { ScanMode, ScanOptions } from './scan.js';
import { quotaLimit, quotaName, quotasFor, type Quota } from './usage.js';

/** What the scan asks for. */
export interface AdmissionRequest {
  mode: ScanMode;
  accessibilityProfile: ScanOptions['accessibility_profile'];
  /** The scan's API specification (domain/spec-identity.ts) was not scanned yet this period. */
  newSpecification?: boolean;
}

/** The tenant's state when the scan asks to start. */
export interface AdmissionFacts {
  plan: Plan;
  /** Counted this period; `specifications`: new API specifications scanned (0 when absent). */
  used: { functional: number; security: number; specifications?: number };
  /** When the current period's quota resets. */
  resetDate: string;
  /** Scans of the tenant queued or running now. */
  active: number;
  /** How many scans the plan may have queued or running at once. */
  concurrentLimit: number;
}

export type AdmissionVerdict =
  | { admitted: true; quotas: Quota[] }
  | { admitted: false; refusal: FeatureNotAvailableError | QuotaExceededError | ConcurrentLimitError };

const FEATURES_OF_MODE: Record<ScanMode, Feature[]> = { security: ['security'], functional: ['functional'], full: ['security', 'functional'] };

/** The API's order: plan feature (402), quota (402), scans at once (429). Admitted scans consume `quotas`. */
export function admissionVerdict(request: AdmissionRequest, facts: AdmissionFacts): AdmissionVerdict {
  const { plan } = facts;
  for (const feature of FEATURES_OF_MODE[request.mode]) {
    if (!planHasFeature(plan, feature)) {
      return refused(new FeatureNotAvailableError(feature, `${feature === 'security' ? 'Security' : 'Functional'} scans are not part of the ${plan} plan`));
    }
  }
  if (request.mode !== 'security' && request.accessibilityProfile !== 'wcag21aa' && !planHasFeature(plan, 'advanced_accessibility_profiles')) {
    return refused(
      new FeatureNotAvailableError('advanced_accessibility_profiles', `The ${request.accessibilityProfile} accessibility profile needs the team plan or above`),
    );
  }
  const quotas = quotasFor(request.mode, request.newSpecification ?? false);
  for (const quota of quotas) {
    const limit = quotaLimit(plan, quota);
    if (limit !== null && (facts.used[quota] ?? 0) >= limit) return refused(new QuotaExceededError(quota, limit, facts.resetDate));
  }
  if (facts.active >= facts.concurrentLimit) return refused(new ConcurrentLimitError(facts.concurrentLimit));
  return { admitted: true, quotas };
}

function refused(refusal: FeatureNotAvailableError | QuotaExceededError | ConcurrentLimitError): AdmissionVerdict {
  return { admitted: false, refusal };
}

/** The plan lacks a feature the request needs (HTTP: 402 FEATURE_NOT_AVAILABLE with an upgrade link). */
export class FeatureNotAvailableError extends Error {
  constructor(
    readonly feature: Feature,
    message: string,
  ) {
    super(message);
    this.name = 'FeatureNotAvailableError';
  }
}

/** The period's quota is used up (HTTP: 402 QUOTA_EXCEEDED with quota_reset_date). */
export class QuotaExceededError extends Error {
  constructor(
    readonly quota: Quota,
    readonly limit: number,
    readonly resetDate: string,
  ) {
    super(
      quota === 'specifications'
        ? `API specification quota of ${limit} new specification${limit === 1 ? '' : 's'} per period is used up: scans of specifications already scanned this period still run; a new one can be scanned after the quota resets on ${resetDate}`
        : `${quotaName(quota)} quota of ${limit} per period is used up; it resets on ${resetDate}`,
    );
    this.name = 'QuotaExceededError';
  }
}

/** As many scans as the plan allows are queued or running (HTTP: 429 CONCURRENT_LIMIT). */
export class ConcurrentLimitError extends Error {
  constructor(readonly limit: number) {
    super(
      `${limit} scan${limit === 1 ? ' is' : 's are'} already queued or running for this tenant, the most the plan allows at once; start this one when one finishes`,
    );
    this.name = 'ConcurrentLimitError';
  }
}
