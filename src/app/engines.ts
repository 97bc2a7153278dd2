import type { Logger } from 'pino';
import type { EngineRegistry } from '../queue/execution.js';
import type { Config } from './config.js';

/**
 * The engines a worker runs, loaded only by processes that run scans (an api-only process never
 * loads the browser driver). Both are always registered: without a Chromium, functional scans
 * still run and fail with BROWSER_UNAVAILABLE, so the reason reaches the user instead of a stuck scan.
 */
export async function defaultEngines(config: Config, logger: Logger): Promise<EngineRegistry> {
  const [{ createSecurityEngine }, { createFunctionalEngine, findChromium }, { CHROMIUM_INSTALL_HINT }] = await Promise.all([
    import('../engines/security/index.js'),
    import('../engines/functional/index.js'),
    import('../engines/functional/browser.js'),
  ]);
  const env = config.chromiumPath ? { ...process.env, CHROMIUM_PATH: config.chromiumPath } : process.env;
  const chromium = findChromium(env);
  if (chromium) logger.info({ chromium }, 'functional scans use this Chromium');
  else logger.warn(`no Chromium found: functional scans will fail with BROWSER_UNAVAILABLE (${CHROMIUM_INSTALL_HINT})`);
  return {
    security: createSecurityEngine({ tuning: { maxOperations: config.specMaxOperations } }),
    functional: createFunctionalEngine({ chromiumPath: chromium, pageCap: config.browserMaxPages, recycleAfterPages: config.browserRecyclePages }),
  };
}
