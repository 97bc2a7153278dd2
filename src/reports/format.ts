/**
 * A report format of the registry (formats/index.ts): what `GET /scan/{id}/reports/{format}`, the
 * dashboard and the CLI render a scan into. Each format is one file of formats/ and one line of the list.
 */
import type { ReportModel } from './model.js';

/** A finding triage set aside (a suppression): the finding's fingerprint and why. */
export interface SuppressedFinding {
  /** The finding's fingerprint (the gate item's key). */
  key: string;
  reason: string;
  /** YYYY-MM-DD, the last day the suppression holds. */
  until?: string;
  /** Who made it (server-side suppressions). */
  author?: string;
  /** A server-side suppression (API, dashboard) or the ignore file. */
  source?: 'server' | 'file';
}

export interface RenderOptions {
  /** Vigil's version, as SARIF names the tool (default: the version of the running package). */
  toolVersion?: string;
  /** The OpenAPI document in the repository (path from the repository root, and its text): SARIF results point at its lines. */
  specFile?: { path: string; text: string };
  /** Suppressed findings: SARIF marks them accepted, JUnit skips them. */
  suppressed?: readonly SuppressedFinding[];
}

export interface ReportFormat {
  /** The name in the URL and on the command line (`sarif`). */
  id: string;
  /** The Content-Type of the file. */
  contentType: string;
  /** The file name extension, without the dot. */
  extension: string;
  /** One line for the OpenAPI document and `--help`. */
  description: string;
  /**
   * Only a completed scan is rendered: a file of a failed or cancelled scan would be read as complete
   * (a SARIF without results closes every open code scanning alert).
   */
  completedOnly: boolean;
  /** The report shows the screenshots: it is rendered from the model with images embedded (data: URIs). */
  embedsImages: boolean;
  render(model: ReportModel, options?: RenderOptions): string;
}
