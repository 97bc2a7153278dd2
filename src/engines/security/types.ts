/** Internal model of the security engine: the API as the checks see it, and the check contract. */
import { DEFAULT_SPEC_MAX_OPERATIONS } from './spec-size.js';
import type { Severity } from '../../domain/scan.js';

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
  /** Vendor extensions, e.g. x-vigil-expensive. */
  extensions: Record<string, unknown>;
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
  request: SentRequest;
  /** timeout | blocked | network: why no response arrived. */
  error?: string;
  errorMessage?: string;
}

export interface CheckResult {
  status: 'passed' | 'failed';
  /** What was tested, e.g. "SQL injection (error-based) in query parameter q". */
  name: string;
  severity: Severity;
  evidence?: string;
  endpoint?: string;
  parameter?: string;
  /** Overrides the check's CWE for this result (e.g. expired JWT vs alg:none). */
  cwe?: string;
}

export interface CheckDefinition {
  /** Stable id, e.g. "sql-injection". */
  id: string;
  title: string;
  owasp: string;
  cwe: string;
  /** operation: run once per operation; target: run once per scan. */
  scope: 'operation' | 'target';
  /** Operation checks: whether the check has anything to test on this operation. */
  applies?(op: Operation, scan: ScanSession): boolean;
  run(scan: ScanSession, op: Operation | undefined): Promise<CheckResult[]>;
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
}

export const DEFAULT_TUNING: SecurityTuning = {
  timeDelayMs: 2000,
  rateLimitBurst: 50,
  oversizeBodyBytes: 10 * 1024 * 1024,
  maxBodyBytes: 256 * 1024,
  redosLengths: [18, 26],
  redosThresholdMs: 1000,
  maxOperations: DEFAULT_SPEC_MAX_OPERATIONS,
};

// Re-exported so checks import one module.
import type { ScanSession } from './session.js';
export type { ScanSession };
