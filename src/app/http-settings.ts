import type { HttpSettings } from '../http/services.js';
import type { Config } from './config.js';

/** The part of the configuration the HTTP layer reads, and nothing more. */
export function httpSettings(config: Config): HttpSettings {
  return {
    deployment: config.deployment,
    publicUrl: config.publicUrl,
    appUrl: config.appUrl,
    appUrlGuessed: config.appUrlGuessed,
    syncKey: config.syncKey,
    bodyLimitBytes: config.bodyLimitBytes,
    specMaxBytes: config.specMaxBytes,
    specMaxOperations: config.specMaxOperations,
    wsPingSeconds: config.wsPingSeconds,
    scanLeaseSeconds: config.scanLeaseSeconds,
    llm: config.llm,
    sessions: config.sessions,
    openBodies: config.openBodies,
    metrics: {
      countRequests: config.metrics.token !== undefined || config.metrics.port !== undefined,
      // With a port of their own the metrics are served there only.
      token: config.metrics.port === undefined ? config.metrics.token : undefined,
    },
  };
}
