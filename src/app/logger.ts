import pino, { type Logger } from 'pino';

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

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: {
        // The URL can carry ?api_key= on the live socket; strip query values that look like keys.
        req: (req: { method: string; url: string; id: string }) => ({
          id: req.id,
          method: req.method,
          url: req.url.replace(/([?&]api_key=)[^&]*/g, '$1[redacted]'),
        }),
      },
    },
    destination,
  );
}
