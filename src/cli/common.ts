/** Shared pieces of the client commands: connection flags, --json, one-line server errors. */
import { ApiFailure, exitCodeFor, resolveClientConfig, VigilClient } from './client.js';
import { UsageError } from './usage-error.js';

export const CONNECTION_OPTIONS = {
  url: { type: 'string' },
  'api-key': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export const CONNECTION_HELP = `Connection (flags > environment > vigil.config.json|yaml / .vigilrc in the current directory):
  --url <url>          Vigil server (env VIGIL_URL, file "url"; default http://127.0.0.1:8080)
  --api-key <key>      API key (env VIGIL_API_KEY, file "api_key")
  --json               Machine-readable JSON on stdout
  -h, --help           This help
  Every request times out after VIGIL_HTTP_TIMEOUT seconds (default 30).`;

export function clientFrom(values: { url?: string; 'api-key'?: string }, loaded?: Record<string, unknown>): VigilClient {
  return new VigilClient(resolveClientConfig(values, process.env, process.cwd(), loaded));
}

/** `error CODE: message` on stderr (and the body on stdout with --json); a 402/403 plan refusal adds where to upgrade. */
export function printApiError(error: ApiFailure, json: boolean): void {
  const body = error.body && typeof error.body === 'object' ? (error.body as Record<string, unknown>) : {};
  if (json) printJson({ ...body, error: error.code, message: error.message, status: error.status });
  process.stderr.write(`error ${error.code}: ${error.message}\n`);
  if (typeof body.upgrade_url === 'string') process.stderr.write(`upgrade: ${body.upgrade_url}\n`);
  if (typeof body.quota_reset_date === 'string') process.stderr.write(`quota resets: ${body.quota_reset_date}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Runs a client command body, turning server refusals into `error CODE: message` and exit codes. */
export async function guarded(json: boolean, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof ApiFailure) {
      printApiError(error, json);
      return exitCodeFor(error);
    }
    if (error instanceof UsageError) throw error;
    throw error;
  }
}

/** Columns padded to their widest cell (colour codes do not count). */
export { table } from './render.js';
