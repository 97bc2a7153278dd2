import { ConfigError } from '../app/config.js';
import { didYouMean, UsageError } from './usage-error.js';
import { cliVersion } from './version.js';

export const EXIT = { ok: 0, findings: 1, scanFailed: 2, usage: 3, refused: 4, output: 5 } as const;

const HELP = `Usage: vigil <command> [options]

Client commands (talk to a Vigil server; VIGIL_URL, VIGIL_API_KEY or vigil.config.json):
  scan [url] [options]                          Run a scan, wait for it and judge it (exit 0 passed, 1 gate
                                                failed, 2 failed/cancelled, 3 usage, 4 refused, 5 report not written)
  scans list|show|cancel|export|wait            Your scans; "wait <id>" follows and judges one started earlier
  baselines list|approve|delete                 Visual baselines; "approve <scan_id> --page /pricing" accepts a change
  init [--force]                                Write a commented vigil.config.yaml in the current directory
  usage                                         Quota use this period
  billing status                                Plan and subscription
  live                                          Print live usage events

Server and operator commands:
  serve [--role all|api|worker]                 Start Vigil (configuration from the environment)
  tenants create --plan <plan> [--id <id>] [--email <email>]
                                                Create a tenant and print its API key once
  tenants list                                  List tenants with their plan and key prefix
  keys rotate --tenant <id>                     Issue a new key for a tenant and revoke the old one

Run "vigil <command> --help" for a command's options and examples; "vigil --version" prints the version.`;

type Command = (args: string[]) => Promise<number>;

// Loaded on demand: a client command in a CI job should not pay for the server's modules
// (Fastify, the engines, the browser driver, the payment SDK) at every start.
const COMMANDS: Record<string, Command> = {
  serve: async (args) => (await import('./commands/serve.js')).serveCommand(args),
  tenants: async (args) => (await import('./commands/operator.js')).tenantsCommand(args),
  keys: async (args) => (await import('./commands/operator.js')).keysCommand(args),
  init: async (args) => (await import('./commands/init.js')).initCommand(args),
  scan: async (args) => (await import('./commands/scan.js')).scanCommand(args),
  scans: async (args) => (await import('./commands/client-commands.js')).scansCommand(args),
  baselines: async (args) => (await import('./commands/baselines.js')).baselinesCommand(args),
  usage: async (args) => (await import('./commands/client-commands.js')).usageCommand(args),
  billing: async (args) => (await import('./commands/client-commands.js')).billingCommand(args),
  live: async (args) => (await import('./commands/client-commands.js')).liveCommand(args),
};

export async function runCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${HELP}\n`);
    return name ? EXIT.ok : EXIT.usage;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    process.stdout.write(`${cliVersion()}\n`);
    return EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    const what = name.startsWith('-') ? 'option' : 'command';
    process.stderr.write(
      `vigil: unknown ${what} "${name}"${name.startsWith('-') ? didYouMean(name.replace(/^-+/, ''), ['help', 'version'], '--') : didYouMean(name, Object.keys(COMMANDS))}\n\n${HELP}\n`,
    );
    return EXIT.usage;
  }
  try {
    return await command(rest);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError) {
      process.stderr.write(`vigil: ${error.message}\n`);
      return EXIT.usage;
    }
    process.stderr.write(`vigil: ${(error as Error).message}\n`);
    return EXIT.scanFailed;
  }
}
