import type { Logger } from 'pino';
import type { FunctionalEngine } from '../engines/functional/index.js';
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
  const chromium = findChromium(chromiumEnv(config));
  if (chromium) logger.info({ chromium }, 'functional scans use this Chromium');
  else logger.warn(`no Chromium found: functional scans will fail with BROWSER_UNAVAILABLE (${CHROMIUM_INSTALL_HINT})`);
  return {
    security: createSecurityEngine({
      tuning: { maxOperations: config.specMaxOperations, maxSpecBytes: config.specMaxBytes, maxScanSeconds: config.scanMaxSeconds },
    }),
    functional: createFunctionalEngine({
      chromiumPath: chromium ?? config.chromiumPath,
      pageCap: config.browserMaxPages,
      recycleAfterPages: config.browserRecyclePages,
      browserMemoryBudgetBytes: config.browserMemoryMb * 2 ** 20,
    }),
  };
}

function chromiumEnv(config: Config): NodeJS.ProcessEnv {
  return config.chromiumPath ? { ...process.env, CHROMIUM_PATH: config.chromiumPath } : process.env;
}

/**
 * The browser check of GET /health/ready for a process that runs scans: the functional engine's own
 * (Chromium found, connected, its last launch not failed), or, for engines without one (tests register
 * their own), whether Chromium can be found.
 */
export async function browserReadiness(config: Config, engines: EngineRegistry): Promise<() => string> {
  const functional = engines.functional as Partial<FunctionalEngine> | undefined;
  if (typeof functional?.browserReadiness === 'function') return () => functional.browserReadiness!();
  const { resolveChromium } = await import('../engines/functional/browser.js');
  const env = chromiumEnv(config);
  return () => {
    try {
      resolveChromium(env);
      return 'ok';
    } catch (err) {
      return (err as Error).message;
    }
  };
}
