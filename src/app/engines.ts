import type { Logger } from 'pino';
import type { EngineRegistry } from '../queue/runner.js';
import type { Config } from './config.js';

/** The engines a worker runs. An engine that cannot load leaves its scans failing with a clear reason. */
export async function defaultEngines(config: Config, logger: Logger): Promise<EngineRegistry> {
  const engines: EngineRegistry = {};
  void config;
  void logger;
  return engines;
}
