/** Internal model of the security engine: the API as the checks see it, and the check contract. */
import { DEFAULT_SPEC_MAX_OPERATIONS } from './spec-size.js';
import type { NotRunCode, NotRunReason, Severity } from '../../domain/scan.js';

export type JsonSchema = Record<string, any>;

export type ParamLocation = 'path' | 'query' | 'header' | 'cookie';

export interface ParamSpec {
  name: string;
  in: ParamLocation;
  required: boolean;
  schema: JsonSchema;
  example?: unknown;
}

export interface BodySpec {
  /** Chosen media type: application/json preferred, then form, then multipart, then anything. */
  contentType: string;
  schema: JsonSchema;
  example?: unknown;
  required: boolean;
}

export interface ResponseSpec {
  schema?: JsonSchema;
  contentTypes: string[];
}

export interface Operation {
  /** "GET /users/{id}" */
  key: string;
  method: string;
  /** Templated path as written in the spec, without the server base path. */
  path: string;
  operationId?: string;
  summary?: string;
  tags: string[];
  params: ParamSpec[];
  body?: BodySpec;
  /** Keyed by status as written ("200", "2XX", "default"). */
  responses: Record<string, ResponseSpec>;
  /** True when a non-empty security requirement applies (operation-level, else global). */
  secured: boolean;
  /** The operation itself declares `security: []`: public by design. The scan sends it no credentials. */
  publicByDesign: boolean;
  /** OpenAPI 3 response links: which parameter of which operation a response value feeds. */
  links: OperationLink[];
  /** Vendor extensions, e.g. x-vigil-expensive. */
  extensions: Record<string, unknown>;
}

/** `responses.<status>.links.<name>`: `{ operationId | operationRef, parameters: { param: "$response.body#/id" } }`. */
export interface OperationLink {
  /** Status the link hangs off ("201", "2XX", "default"). */
  status: string;
  /** Target operation: its operationId, or its "METHOD /path" key when given as an operationRef. */
  operationId?: string;
  operationKey?: string;
  /** Target parameter name -> runtime expression ("$response.body#/id", "$response.header.Location", "$request.path.id"). */
  parameters: Record<string, string>;
}

export interface ApiModel {
  title: string;
  apiVersion: string;
  /** "2.0", "3.0.3", "3.1.0" ... */
  specVersion: string;
  /** Path prefix from servers[0] / basePath, e.g. "/api/v2" ("" for none). */
  serverPath: string;
  /** Schemes the spec declares for its servers ("https", "http"). */
  serverSchemes: string[];
  operations: Operation[];
}

export type Identity = 'primary' | 'secondary' | 'none';

/** A request before the base URL and credentials are applied. */
export interface RequestSpec {
  method: string;
  /** Concrete path relative to the API base (already substituted, already encoded), or an absolute URL. */
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  /** A list of buffers is sent as is, in order (large probe bodies share one padding buffer). */
  body?: string | Buffer | Buffer[];
  /** Who signs the request. Default primary. */
  identity?: Identity;
  followRedirects?: boolean;
  /** Override of the per-request timeout (ms); never longer than the scan timeout. */
  timeoutMs?: number;
  /** The operation the request was built for (`ctx.request` sets it): coverage, public-by-design operations, created resources. */
  op?: Operation;
  /** Signed with the credential of an account the scan registered (an explicit authorization): the rule that guards the identities' own accounts does not apply. */
  scanAccount?: boolean;
}

/** Changes to an operation's default request (synth.ts builds it). */
export interface Overrides {
  /** Replacement values by parameter name (raw strings are sent verbatim after encoding). */
  path?: Record<string, string>;
  query?: Record<string, string | undefined>;
  /** Extra raw query pairs (e.g. "q[$ne]"). */
  extraQuery?: [string, string][];
  headers?: Record<string, string>;
  /** Full replacement of the body value (object for JSON/form) or raw string. */
  body?: unknown;
  rawBody?: string | Buffer;
  contentType?: string;
  method?: string;
  /** Only the body's required properties (optional parameters are always left out unless set here). */
  requiredOnly?: boolean;
}

export interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface TargetResponse {
  /** 0 when no response arrived (see `error`). */
  status: number;
  headers: Record<string, string>;
  /** Up to the body cap (utf-8, lossy for binary). */
  body: string;
  /** Full body size in bytes, even past the cap. */
  size: number;
  /** Time from sending (after a concurrency slot was granted) to the end of the body. */
  elapsedMs: number;
  /**
   * For a body sent in chunks (large probes): time from the last byte sent to the response headers,
   * the server's own work without the upload, which grows with the size on any link.
   */
  afterUploadMs?: number;
  request: SentRequest;
  /** timeout | blocked | network | withheld: why no response arrived. */
  error?: string;
  errorMessage?: string;
  /** A request the scan did not send (error "withheld"): why, as a not-run code and text. */
  withheld?: NotRunReason;
}

export interface CheckResult {
  status: 'passed' | 'failed';
  /** What was tested, e.g. "SQL injection (error-based) in query parameter q". */
  name: string;
  severity: Severity;
  evidence?: string;
  /** Defaults to the operation of an operation check. Target checks name an operation or leave it out. */
  endpoint?: string;
  /** Findings that are the same on every operation: the operations affected ("METHOD /path"). */
  endpoints?: string[];
  parameter?: string;
  /** Overrides the check's CWE for this result (e.g. expired JWT vs alg:none). */
  cwe?: string;
  /** The verdict rests on values the scan invented (no real resource was found): said in the results. */
  invented?: boolean;
}

/** A reference a finding links to (OWASP API Top 10 2023, CWE, vendor docs). */
export interface CheckReference {
  title: string;
  url: string;
}

/** What every check says about itself: shown in results, the HTML report and SARIF (docs/security-checks.md). */
export interface CheckMeta {
  /** Stable id, e.g. "sql-injection". */
  id: string;
  title: string;
  /** What the check does, in a sentence or two. */
  description?: string;
  /** What an attacker gains when it fails. */
  risk?: string;
  /** How to fix it. */
  remediation?: string;
  /** OWASP API Security Top 10 2023 id, e.g. "API1:2023". */
  owasp: string;
  /** e.g. "CWE-639". */
  cwe: string;
  /** Beyond the OWASP and CWE pages (derived from the ids). */
  references?: CheckReference[];
  /**
   * Timing-based: its probes run alone against the target (no other request of the scan in
   * flight), after the other checks of the same phase.
   */
  timing?: boolean;
  /**
   * Compares a few answers of a target nothing has hammered yet (a login throttled by the rate-limit
   * check's burst says nothing about accounts): runs with the stateful checks, first in its phase.
   */
  early?: boolean;
  /**
   * Works on the scan's own resources (authorization checks): runs before the other checks of its
   * phase, which might change or delete those resources under it.
   */
  stateful?: boolean;
  /**
   * Evidence of execution besides a 2xx (verdict.ts): an answer status that shows the check's
   * requests reached the code it tests (a 429 from the limiter the rate-limit check looks for).
   */
  executedBy?(status: number, op: Operation): boolean;
}

/**
 * Why a check did not run (on an operation, or at all): coverage says so. A text alone means the
 * check does not apply there (code `not_applicable`); a reason with another code means it applies
 * but could not be tested (no second identity, no JWT seen: `prerequisite_missing`).
 */
export type NotApplicable = string | NotRunReason;

/**
 * A check that found nothing it could test (no resource of the first identity, say) says why instead
 * of passing: `code` (domain NOT_RUN_CODES) for machines, `notTested` for people.
 */
export interface NotTested {
  notTested: string;
  code: NotRunCode;
}

export type CheckOutcome = CheckResult[] | NotTested;

/** Run once per operation. `applies` returns true, or a reason it has nothing to test there. */
export interface OperationCheck extends CheckMeta {
  scope: 'operation';
  applies?(op: Operation, ctx: CheckContext): true | false | NotApplicable;
  run(ctx: CheckContext, op: Operation): Promise<CheckOutcome>;
}

/** Run once per scan. `applies` returns true, or a reason it could not apply (no JWT seen...). */
export interface TargetCheck extends CheckMeta {
  scope: 'target';
  applies?(ctx: CheckContext): true | false | NotApplicable;
  run(ctx: CheckContext): Promise<CheckOutcome>;
}

export type CheckDefinition = OperationCheck | TargetCheck;

/** Where an operation runs in the scan: reads, then creates, then updates, then deletes and destructive ones last. */
export type OperationPhase = 'read' | 'create' | 'update' | 'delete' | 'destructive';

/** A value harvested from the target (an id, a name, a username...). */
export interface HarvestedValue {
  value: string | number;
  /** Property name it was found under, or "location" / "link". */
  source: string;
  /** The operation whose response carried it. */
  from: string;
  /** Identity that saw it. */
  identity: Identity;
  /** True when the scan created the resource as that identity (it owns it). */
  owned: boolean;
}

/** A resource the scan created: named recognisably, deleted at the end where a delete operation exists. */
export interface CreatedResource {
  /** The create operation. */
  op: Operation;
  identity: Identity;
  /** The id (or name) that addresses it, when known. */
  id?: string | number;
  /** Path that reads it (Location, or collection path + id). */
  path?: string;
  /** The body it was created with (a check compares reads against it). */
  body?: unknown;
  /** Primitive values of the sent body and the answer, by normalised name (also `<resource><name>`): what addresses it. */
  values: Record<string, string | number>;
  /** Path values of the collection it was created in (`{slug}` of `/articles/{slug}/comments`): its parent. */
  parent?: Record<string, string>;
  deleted?: boolean;
}

/**
 * What checks get from the engine (the session implements it). Checks never reach the client:
 * everything goes through `send`, which applies the identity's credentials (none to an operation
 * that is public by design), the exclusive gate of timing probes, and coverage bookkeeping.
 */
export interface CheckContext {
  readonly model: ApiModel;
  /** The operations this scan tests: the model's, less those excluded (options.exclude) or skipped (safe mode). */
  readonly operations: Operation[];
  readonly tuning: SecurityTuning;
  readonly signal: AbortSignal;
  /** Scan marker used in names of what the scan creates ("vigil-<8 hex>"). */
  readonly marker: string;
  /** The scan's target URL as given (where the app is mounted). */
  readonly targetUrl: string;
  readonly hasAuth: boolean;
  readonly hasSecondary: boolean;
  /** A username the first identity is known by (Basic auth, or harvested from its profile), for account checks. */
  readonly knownUsername: string | undefined;
  /** options.safe_mode: destructive operations are not run at all. */
  readonly safeMode: boolean;
  send(req: RequestSpec): Promise<TargetResponse>;
  /**
   * The request for an operation with real values: path (and matching query) parameters filled
   * from harvested values the identity can use (its own first), then the spec's examples/schema.
   */
  request(op: Operation, overrides?: Overrides, identity?: Identity): RequestSpec;
  /** True when `request(op)` had to invent a path parameter value (no real resource found). */
  invented(op: Operation, identity?: Identity): boolean;
  /** The operation's baseline response for an identity: sent once by the engine, shared by every check. */
  baseline(op: Operation, identity?: Identity): Promise<TargetResponse>;
  /** Values harvested for a parameter name (best first), optionally only those `identity` owns. */
  values(param: string, opts?: { identity?: Identity; owned?: boolean; op?: Operation }): HarvestedValue[];
  /** JWTs the scan holds or saw: the identities' bearer tokens, then tokens found in responses (login answers). */
  jwts(): { token: string; identity: Identity; source: string }[];
  /** Registers a value the target gave (a token from a login answer, an id) as harvested. */
  remember(value: HarvestedValue): void;
  /** Resources the scan created (per identity), for checks that need something they own. */
  created(identity?: Identity): CreatedResource[];
  /** Reads a JSON response body (undefined when it is not JSON). */
  json(res: TargetResponse): unknown;
  /** Credential headers of an identity (for checks that forge tokens from them). */
  authHeaders(identity?: Identity): Promise<Record<string, string>>;
  /** Absolute URL for a path relative to the API base. */
  url(path: string, query?: [string, string][]): string;
  evidence(res: TargetResponse, proof: string): string;
  excerpt(res: TargetResponse, max: number): string;
  shownBody(res: TargetResponse): string;
  mask(text: string): string;
}

/** Knobs that tests and the benchmark turn; defaults are production values. */
export interface SecurityTuning {
  /** Time-based probes: first delay in ms (confirmed with 2x). Default 2000. */
  timeDelayMs: number;
  /** Rate-limit check: burst size. Default 50. */
  rateLimitBurst: number;
  /** Oversized body probe size in bytes (half of it is sent first). Default 10 MiB. */
  oversizeBodyBytes: number;
  /** Response body cap kept in memory per response. Default 256 KiB. */
  maxBodyBytes: number;
  /** Lengths of the backtracking probe strings, ascending. */
  redosLengths: [number, number];
  /** Backtracking probes: extra time over the baseline that counts as slow. Default 1000. */
  redosThresholdMs: number;
  /** Checks to run (ids); default all. */
  onlyChecks?: string[];
  /** Most operations a spec may have (VIGIL_SPEC_MAX_OPERATIONS); more fails the scan with SPEC_TOO_LARGE. Default 2000. */
  maxOperations: number;
  /** Largest specification document fetched from spec_url or discovered (VIGIL_SPEC_MAX_BYTES). Default 5 MiB. */
  maxSpecBytes: number;
  /** JWT weak-secret search: time budget (ms) of its worker thread, one core at most. Default 20000. */
  jwtSecretSearchMs: number;
  /** How long the scan waits for a target that stopped answering to come back (bounded back-off) before it stops. Default 30000. */
  recoveryWaitMs: number;
  /** Ceiling on the time one scan spends on its target (VIGIL_SCAN_MAX_SECONDS, ceiling.ts). Default 3600. */
  maxScanSeconds: number;
}

export const DEFAULT_TUNING: SecurityTuning = {
  timeDelayMs: 2000,
  rateLimitBurst: 50,
  oversizeBodyBytes: 10 * 1024 * 1024,
  maxBodyBytes: 256 * 1024,
  redosLengths: [18, 26],
  redosThresholdMs: 1000,
  maxOperations: DEFAULT_SPEC_MAX_OPERATIONS,
  maxSpecBytes: 5 * 1024 * 1024,
  jwtSecretSearchMs: 20_000,
  recoveryWaitMs: 30_000,
  maxScanSeconds: 3600,
};
