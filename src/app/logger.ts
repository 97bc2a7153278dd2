import pino, { type Logger } from 'pino';
import type { Redactor } from '../domain/redaction.js';

/** Paths pino replaces with [redacted]: keys, secrets and credentials never reach the logs. */
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers["x-sync-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["provider-signature"]',
  'req.query.api_key',
  'apiKey',
  'api_key',
  'syncKey',
  'secretKey',
  'webhookSecret',
  'password',
  'token',
  'auth',
  '*.apiKey',
  '*.api_key',
  '*.password',
  '*.token',
  '*.auth',
  '*.secretKey',
  '*.webhookSecret',
  '*.syncKey',
];

/** Where a logger created here keeps the redactors of the scans running in this process. */
const SCAN_REDACTORS = Symbol('vigil.scanRedactors');

/** Adds a scan's redactor to a logger's output until the returned function is called. */
export interface LogRedaction {
  add(redactor: Redactor): () => void;
}

/**
 * A logger writing JSON lines to `destination`, by default to standard output asynchronously (pino's
 * SonicBoom with sync: false: lines are written in batches off the request path, and flushed when the
 * process exits).
 */
export function createLogger(level: string, destination: pino.DestinationStream = pino.destination({ dest: 1, sync: false })): Logger {
  const live = new Set<Redactor>();
  const logger = pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: {
        // The URL can carry ?api_key= on the live socket; strip query values that look like keys.
        req: (req: { method: string; url: string; id: string }) => ({
          id: req.id,
          method: req.method,
          url: req.url.includes('api_key=') ? req.url.replace(/([?&]api_key=)[^&]*/g, '$1[redacted]') : req.url,
        }),
      },
      // Path-based redaction cannot know a scan's target credentials (or where a target echoed
      // them: an error message, a URL, a body); the finished line is checked for them instead.
      hooks: { streamWrite: (line) => redactLine(line, live) },
    },
    destination,
  );
  Object.defineProperty(logger, SCAN_REDACTORS, { value: live });
  return logger;
}

/** The scan-credential redaction of a logger made by createLogger (children included); undefined for other loggers. */
export function logRedaction(logger: Logger): LogRedaction | undefined {
  const live = (logger as unknown as Record<symbol, Set<Redactor> | undefined>)[SCAN_REDACTORS];
  if (!live) return undefined;
  return {
    add(redactor) {
      live.add(redactor);
      return () => live.delete(redactor);
    },
  };
}

/** A log line (pino's JSON plus newline) with every registered scan credential redacted in its values and keys. */
function redactLine(line: string, live: Set<Redactor>): string {
  if (live.size === 0) return line;
  let hit = false;
  for (const r of live) if (r.test(line)) hit = true;
  if (!hit) return line;
  try {
    // Redacting the parsed values keeps the line valid JSON whatever the secret's characters.
    let value: unknown = JSON.parse(line);
    for (const r of live) value = r.redactValue(value);
    return `${JSON.stringify(value)}\n`;
  } catch {
    let out = line;
    for (const r of live) out = r.redact(out);
    return out;
  }
}
