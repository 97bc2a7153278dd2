import type { Logger } from 'pino';
import type { EngineRegistry } from '../queue/runner.js';
import type { Config } from './config.js';
import { createSecurityEngine } from '../engines/security/index.js';
import { createFunctionalEngine, findChromium } from '../engines/functional/index.js';
import { CHROMIUM_INSTALL_HINT } from '../engines/functional/browser.js';

/**
 * The engines a worker runs. Both are always registered: without a Chromium, functional scans
 * still run and fail with BROWSER_UNAVAILABLE, so the reason reaches the user instead of a stuck scan.
 */
export async function defaultEngines(config: Config, logger: Logger): Promise<EngineRegistry> {
  const env = config.chromiumPath ? { ...process.env, CHROMIUM_PATH: config.chromiumPath } : process.env;
  const chromium = findChromium(env);
  if (chromium) logger.info({ chromium }, 'functional scans use this Chromium');
  else logger.warn(`no Chromium found: functional scans will fail with BROWSER_UNAVAILABLE (${CHROMIUM_INSTALL_HINT})`);
  return {
    security: createSecurityEngine(),
    functional: createFunctionalEngine({ chromiumPath: chromium }),
  };
}
