/** Scan request and result shapes shared by the API, the queue and the engines. */
import type { ScanCi } from './ci.js';
import type { Budget, BudgetLine } from './budgets.js';

export const SCAN_MODES = ['security', 'functional', 'full'] as const;
export type ScanMode = (typeof SCAN_MODES)[number];

export const SCAN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];
/** A queued or running scan: it counts against the tenant's scans at once. */
export const ACTIVE_STATUSES: readonly ScanStatus[] = ['queued', 'running'];
/** A scan that ended: it never changes again. */
export const FINAL_STATUSES: readonly ScanStatus[] = ['completed', 'failed', 'cancelled'];

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** True when a failed task's severity is at or above `threshold` (options.fail_on); false without one. */
export function thresholdReached(tasks: ReadonlyArray<{ status: string; severity?: string | null }>, threshold: Severity | null | undefined): boolean {
  if (!threshold) return false;
  const limit = SEVERITIES.indexOf(threshold);
  return tasks.some(
    (t) =>
      t.status === 'failed' &&
      typeof t.severity === 'string' &&
      SEVERITIES.includes(t.severity as Severity) &&
      SEVERITIES.indexOf(t.severity as Severity) <= limit,
  );
}

export type TargetAuthType = 'bearer' | 'header' | 'basic' | 'oauth2' | 'login' | 'none';

/**
 * How an identity of type `login` logs in (docs/scans.md, "Identities that log in"): its
 * `username` and `password` sent to a login operation, the credential taken from the answer and
 * sent on every request, logged in again when it expires or stops being accepted.
 */
export interface LoginSettings {
  /** The login operation's URL: absolute, or a path resolved against the target URL. One of url and operation. */
  url?: string;
  /** With url: its method. Default POST. */
  method?: 'POST' | 'PUT' | 'PATCH' | 'GET';
  /** The login operation of the spec: its operationId, or "METHOD /path". */
  operation?: string;
  /** Body encoding: json (default, or the operation's own) or form (application/x-www-form-urlencoded). */
  format?: 'json' | 'form';
  /** Body field names of the user name (e.g. email) and the password. Default: the operation's own, else username and password. */
  username_field?: string;
  password_field?: string;
  /** Where the credential is in the answer (at most one): a JSON pointer into the body, a response header, or a cookie (a cookie session). Default: found by itself. */
  token_pointer?: string;
  token_header?: string;
  token_cookie?: string;
  /** How a token (not a cookie session) is sent: header name (default Authorization) and scheme (default Bearer; "" for the bare token). */
  send_header?: string;
  send_scheme?: string;
  /** CSRF: a page fetched (GET) before logging in, where the token is read from a cookie or the JSON answer (the login's answer too), sent back in a header (default X-CSRF-Token). */
  csrf_url?: string;
  csrf_cookie?: string;
  csrf_pointer?: string;
  csrf_header?: string;
}

/** Credentials for the scan target. Secrets: never returned, never logged. */
export interface TargetAuth {
  type: TargetAuthType;
  token?: string;
  header_name?: string;
  header_value?: string;
  /** basic, login and the OAuth2 password grant: the account's user name (or email) and password. */
  username?: string;
  password?: string;
  oauth2_token_url?: string;
  /** client_credentials (default) or password (the resource owner password grant, with username and password). */
  oauth2_grant_type?: 'client_credentials' | 'password';
  oauth2_client_id?: string;
  oauth2_client_secret?: string;
  oauth2_scope?: string;
  /** type login: how the identity logs in. */
  login?: LoginSettings;
}

/** Identities that obtain their credential by logging in (and can log in again): login, and the OAuth2 password grant. */
export function logsIn(a: TargetAuth | undefined): boolean {
  return !!a && (a.type === 'login' || (a.type === 'oauth2' && a.oauth2_grant_type === 'password'));
}

/** options.throttling's values (Lighthouse's throttlingMethod, `provided` named `none`). */
export const THROTTLING_METHODS = ['simulate', 'devtools', 'none'] as const;
export type Throttling = (typeof THROTTLING_METHODS)[number];

/**
 * Scan options as the API normalised them (http/scan-request.ts normalizeScanRequest fills in every
 * default): the engines read them as they are.
 */
export interface ScanOptions {
  /** Parallel requests (security) or pages (functional). Default 5. */
  concurrency: number;
  /** Seconds per request (security) or per page (functional). Default 30. */
  timeout: number;
  fail_on?: 'critical' | 'high' | 'medium' | 'low';
  /** Path or URL patterns to skip; `*` matches any run of characters. */
  exclude: string[];
  /** Security: skip operations that look destructive or global (reset, seed, purge, DELETE on a collection). */
  safe_mode?: boolean;
  // functional options
  pages?: string[];
  /** Pages of `pages` given as `{label, url}`: the label is their baseline key instead of path and query. */
  page_labels?: Array<{ label: string; url: string }>;
  /** The branch whose baselines the scan compares against and writes; absent: `default_branch`. */
  branch?: string;
  /** The branch a branch without a page's baseline falls back to. Default "main". */
  default_branch: string;
  max_pages: number;
  diff_threshold_percent: number;
  /** Changed pixels in one region above which a page is a diff, whatever its percent. Default 150. */
  min_region_px: number;
  /** Areas of the full-page screenshot never compared (page coordinates, CSS pixels). */
  ignore_regions?: VisualRect[];
  /** Visual thresholds of single pages (options.pages objects), by the page's URL or path as given. */
  page_thresholds?: Array<{ url: string; diff_threshold_percent?: number; min_region_px?: number }>;
  viewport: { width: number; height: number };
  mask?: string[];
  device: 'desktop' | 'mobile';
  /**
   * How the performance load is throttled, as Lighthouse's throttlingMethod: `simulate` (Lantern over
   * one unthrottled load's trace and network log), `devtools` (network and CPU throttled in the
   * browser during the load) or `none`. Absent (scans stored before it existed): simulate.
   */
  throttling?: Throttling;
  /** Performance budgets judged on every measured page (src/domain/budgets.ts); absent: none. */
  budgets?: Budget[];
  accessibility_profile: 'wcag21aa' | 'wcag22aa' | 'section508';
  /** Also run axe's best-practice rules. Default false. */
  accessibility_best_practices?: boolean;
  /** axe rule ids run outside the profile's tags (enable) or not at all (disable). */
  accessibility_rules?: { enable?: string[]; disable?: string[] };
}

/** The scan input an engine receives (target credentials decrypted). */
export interface ScanInput {
  url: string;
  mode: ScanMode;
  spec_url?: string;
  /** Decoded specification text (from spec_content, an uploaded file, or none). */
  spec_text?: string;
  auth?: TargetAuth & { secondary?: TargetAuth };
  options: ScanOptions;
  reset_baseline: boolean;
  /** What a CI run scanned (repository, branch, commit, pull request): stored in the scan's own column, not in its input. */
  ci?: ScanCi;
}

export interface Task {
  task_id: string;
  /** Which engine produced it (set by the worker). */
  kind?: 'security' | 'functional';
  name: string;
  status: 'passed' | 'failed';
  /** Security tasks. */
  severity?: Severity;
  /** Security tasks: the request sent and the response part that proves the verdict (secrets masked). */
  evidence?: string;
  /** Functional tasks that failed. */
  error?: string;
  /** Functional tasks. */
  duration_ms?: number;
  /** Security tasks: check id, OWASP API Top 10 2023 id (e.g. "API1:2023") and CWE (e.g. "CWE-639"). */
  check?: string;
  owasp?: string;
  cwe?: string;
  /** Security tasks: "METHOD /path" of the operation, and the parameter involved if any. */
  endpoint?: string;
  parameter?: string;
  /** Security tasks of findings that are the same on every operation: every operation affected. */
  endpoints?: string[];
  /** Security tasks: the verdict rests on invented values (no real resource was found to test with). */
  invented_values?: boolean;
}

export interface VisualRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A group of changed pixels: its box on the page and how many of its pixels changed. */
export interface VisualRegion extends VisualRect {
  changed_pixels: number;
}

/** An area that kept changing between screenshots, and the element covering it (to mask). */
export interface MovingRegion extends VisualRect {
  selector: string | null;
}

/** A text of a visible element that changed, appeared or disappeared since the baseline (by meaning, whatever its pixels). */
export interface VisualTextChange {
  kind: 'changed' | 'added' | 'removed';
  /** CSS selector of the element (in the current page; removed: in the baseline's). */
  selector: string;
  tag: string;
  before: string | null;
  after: string | null;
  /** The element's box in page pixels (current screenshot; removed: the baseline's). */
  box: VisualRect;
  /** In words: "h1 text changed: 'Harbour News' → 'Harbour Daily' (main > h1)". */
  description: string;
}

/** Elements that kept their text but moved or changed size since the baseline, consecutive ones with the same offset as one. */
export interface VisualLayoutMove {
  /** The first element of the run: its selector (in the current page), tag and text. */
  selector: string;
  tag: string;
  text: string;
  /** Elements in the run (document order, all shifted alike). */
  elements: number;
  /** Offset of the run in page pixels (right and down are positive), and change of the first element's size. */
  dx: number;
  dy: number;
  width_change: number;
  height_change: number;
  /** The run's box in the baseline and in the current screenshot. */
  before: VisualRect;
  after: VisualRect;
  /** In words: "h2 'Features' and the 11 elements after it moved down 40 px (main > h2)". */
  description: string;
}

export interface VisualPage {
  page_url: string;
  /** The page's baseline key: path and query, or its label (absent in results stored before keys). */
  page_key?: string;
  /** The branch of the baseline compared against (the scan's, or the default branch it fell back to). */
  baseline_branch?: string;
  viewport: { width: number; height: number };
  diff_detected: boolean;
  diff_percent: number;
  /** Artifact ids; the API turns them into signed URLs. */
  baseline_artifact: string;
  current_artifact: string;
  diff_artifact: string | null;
  /** True when this scan set (or reset) the baseline. */
  baseline_created: boolean;
  /** The diff image scaled down (at most 320 px wide), when there is a diff image. */
  diff_thumbnail_artifact?: string | null;
  /** The thresholds this page was judged with (its own from options.pages, else the scan's). */
  diff_threshold_percent?: number;
  min_region_px?: number;
  /** Changed regions, largest first (at most 50); region_count says how many there were. */
  regions?: VisualRegion[];
  region_count?: number;
  /** True when part of the page kept changing between screenshots: those areas are not compared. */
  unstable?: boolean;
  moving_regions?: MovingRegion[];
  /** What to do about an unstable page (which selector to mask). */
  hint?: string;
  /** Texts of visible elements that changed since the baseline (absent when none, or no baseline text to compare). */
  text_changes?: VisualTextChange[];
  /** On a pixel diff: the elements that moved or changed size, by element (absent when none, or no baseline text to compare). */
  layout_moves?: VisualLayoutMove[];
  /** The page's visible text and boxes as captured (a JSON artifact: the results' dom_snapshots). */
  dom_snapshot_artifact?: string;
  /** What the result means for the user: "baseline recorded ...", or how to approve a diff. */
  message?: string;
}

/** One element an axe rule flagged. */
export interface AccessibilityNode {
  /** axe's CSS selector; elements in frames or shadow roots: one selector per level, joined with " >>> ". */
  target: string;
  /** The element's opening HTML, as axe cut it. */
  html: string;
  /** What to fix ("Fix any of the following: ..."). */
  failure_summary: string;
}

export interface AccessibilityViolation {
  rule: string;
  impact: 'critical' | 'serious' | 'moderate' | 'minor';
  wcag: string;
  page_url: string;
  /** Every element that fails; `nodes` lists the first of them. */
  elements_affected: number;
  description: string;
  help_url: string;
  /** The first 20 elements (absent in scans made before nodes were reported). */
  nodes?: AccessibilityNode[];
}

/** A rule axe could not decide on some elements ("needs review"): a person has to check them. Not scored as a failure. */
export interface AccessibilityReviewItem {
  rule: string;
  impact: 'critical' | 'serious' | 'moderate' | 'minor' | null;
  wcag: string;
  page_url: string;
  elements_affected: number;
  description: string;
  help_url: string;
  nodes: AccessibilityNode[];
  /** axe failed on the rule (the rule is then not scored). */
  error?: string;
}

export interface AccessibilityPage {
  page_url: string;
  violations: number;
  /** Rules needing review on the page (absent in older scans). */
  needs_review?: number;
  compliance_score: number;
}

export interface PerformancePage {
  page_url: string;
  /** Null when nothing was painted (no contentful paint): there was nothing to score. */
  performance_score: number | null;
  lcp_ms: number;
  fid_ms: number;
  cls: number;
  ttfb_ms: number;
  fcp_ms: number;
  tbt_ms: number;
  si_ms: number;
  tti_ms: number;
  rating: 'good' | 'needs-improvement' | 'poor';
  /** How the metrics were obtained (options.throttling, or devtools when simulate fell back); absent in older scans. */
  throttling?: Throttling;
  /** options.budgets judged on this page; absent when no budget applies. */
  budgets?: BudgetLine[];
}

export interface FunctionalOutcome {
  diff_threshold_percent: number;
  visual: VisualPage[];
  accessibility: {
    wcag_level: string;
    /** Null when no page was audited. */
    compliance_score: number | null;
    violations: AccessibilityViolation[];
    /** axe's incomplete results (absent in older scans). */
    needs_review?: AccessibilityReviewItem[];
    /** The axe-core that ran (absent in older scans, and when no page got as far as axe). */
    engine?: { name: 'axe-core'; version: string };
    pages: AccessibilityPage[];
  };
  /** The mean of the pages' scores; null when no page was scored. */
  performance: { performance_score: number | null; pages: PerformancePage[] };
  /** Notes on pages whose results may be incomplete ("<url>: measured at the timeout"); absent when none. */
  warnings?: string[];
}

/** What a security check says about itself (shown in results, the HTML report and SARIF). */
export interface SecurityCheckInfo {
  id: string;
  title: string;
  description: string;
  risk: string;
  remediation: string;
  /** e.g. { id: "API1:2023", url: "https://owasp.org/API-Security/editions/2023/en/0xa1-broken-object-level-authorization/" } */
  owasp: { id: string; url: string };
  /** e.g. { id: "CWE-639", url: "https://cwe.mitre.org/data/definitions/639.html" } */
  cwe: { id: string; url: string };
  references: { title: string; url: string }[];
}

/** Per operation: what the scan reached. */
export interface OperationCoverage {
  /** "METHOD /path" */
  endpoint: string;
  /** Distinct HTTP statuses the operation answered during the scan (0: no response). */
  statuses: number[];
  /** Whether a 2xx was reached with each identity (null: that identity was not configured). */
  reached_2xx: { primary: boolean; secondary: boolean | null; anonymous: boolean };
  /** Requests sent to it. */
  requests: number;
  /** Skipped whole: why ("excluded", "safe mode: destructive"), else absent. */
  skipped?: string;
  /** True when its path parameters had only invented values (no real resource found). */
  invented_values?: boolean;
}

/**
 * Why a check run (one check on one operation, or a check of the whole target) was not tested, as a
 * stable machine-readable code set by the engine where the verdict is made; the reason text beside
 * it says the same for people (docs/security-checks.md, "What not tested means"). `not_applicable`
 * is the only code that is not "not tested": the check has nothing to test there.
 */
export const NOT_RUN_CODES = [
  'not_applicable',
  'excluded',
  'safe_mode',
  'prerequisite_missing',
  'never_authorised',
  'validation_refused',
  'not_found',
  'server_error',
  'no_answer',
  'not_reached',
  'inconclusive',
  'target_down',
  'identity_lost',
  'own_account',
  'time_ceiling',
  'check_error',
] as const;
export type NotRunCode = (typeof NOT_RUN_CODES)[number];

/** A reason a check run was not tested: its code and the same in words. */
export interface NotRunReason {
  code: NotRunCode;
  text: string;
}

/** Per check: where it ran and, where it did not, why. */
export interface CheckCoverage {
  check: string;
  title: string;
  /** Operations (or 1 for a target check) it ran on. */
  ran: number;
  /**
   * Operations it did not run on, grouped by reason ("no second identity", "no JWT seen", "safe mode").
   * `reason_code` (NOT_RUN_CODES) is absent only in results stored before the codes existed.
   */
  not_run: { reason: string; reason_code?: NotRunCode; count: number; endpoints: string[] }[];
}

/** Security-specific results: coverage, warnings and the catalogue of the checks that ran. */
export interface SecurityOutcome {
  /** Shown at the top of results and reports, e.g. "0 of 29 operations answered 2xx: is the base URL right?". */
  warnings: string[];
  /** Set when the target stopped answering mid-scan and did not recover: when, after which check and operation, and how long the scan waited. */
  target_down?: { at: string; check: string; endpoint?: string; waited_seconds: number };
  coverage: {
    operations: OperationCoverage[];
    checks: CheckCoverage[];
    /** Operations that answered 2xx with some identity, of those tested. */
    operations_2xx: number;
    operations_total: number;
    /** Resources the scan created, and how many it deleted again. */
    resources_created: number;
    resources_deleted: number;
    /** Resources the scan created and could not delete (first 200): the operation that created each, its owner, its id or path. */
    resources_left?: { created_by: string; identity: string; id?: string; path?: string }[];
    /** Each identity the user gave: verified before discovery (on which operation), or why not; when it stopped being accepted. */
    identities?: {
      identity: string;
      verified: boolean;
      verified_on?: string;
      unverified?: string;
      lost_at?: string;
      /** Why it was not used after lost_at (or from the start: a login that did not yield a working credential). */
      lost_reason?: string;
      /** Identities that log in: how many logins (first one included) and token refreshes the scan made. */
      logins?: number;
      refreshes?: number;
    }[];
  };
  checks: SecurityCheckInfo[];
}

/** What an engine hands back when it finishes. */
export interface EngineOutcome {
  tasks: Task[];
  agent_count: number;
  functional?: FunctionalOutcome;
  security?: SecurityOutcome;
}
