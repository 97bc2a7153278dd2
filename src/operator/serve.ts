/** `vigil serve`: starts Vigil in the role asked for, and stops it gracefully on SIGTERM or SIGINT. */
import { loadConfig } from '../app/config.js';
import { createVigil } from '../app/vigil.js';
import { parseCommandArgs } from '../cli/usage-error.js';

const HELP = `Usage: vigil serve [--role all|api|worker]

Starts Vigil. Configuration comes from the environment (see README, "Configuration").
  --role   all (default: api + worker in one process), api, or worker

Examples:
  vigil serve
  DATABASE_URL=postgres://localhost/vigil REDIS_URL=redis://localhost vigil serve --role api`;

export async function serveCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(args, { role: { type: 'string' }, help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const env = { ...process.env, ...(values.role ? { VIGIL_ROLE: values.role } : {}) };
  const config = loadConfig(env);
  const vigil = await createVigil(config);
  await vigil.start();

  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      vigil.services.logger.info({ signal }, 'shutting down');
      vigil.stop().then(resolve, (error) => {
        vigil.services.logger.error({ err: error }, 'error during shutdown');
        resolve();
      });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  return 0;
}
