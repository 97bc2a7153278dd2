/**
 * The client's commands (what the client package ships and the server install offers too) and the
 * client's `vigil --help`. The server's commands are named here only to tell a client user where they live.
 */
import { type Command, type CommandLine, commandLineHelp } from '../command-line.js';
import { UsageError } from '../usage-error.js';

// Loaded on demand: a command in a CI job pays only for its own modules at start.
export const CLIENT_COMMANDS: Record<string, Command> = {
  init: async (args) => (await import('./init.js')).initCommand(args),
  scan: async (args) => (await import('./scan.js')).scanCommand(args),
  scans: async (args) => (await import('./client-commands.js')).scansCommand(args),
  baselines: async (args) => (await import('./baselines.js')).baselinesCommand(args),
  usage: async (args) => (await import('./client-commands.js')).usageCommand(args),
  billing: async (args) => (await import('./client-commands.js')).billingCommand(args),
  live: async (args) => (await import('./client-commands.js')).liveCommand(args),
};

export const CLIENT_COMMANDS_HELP = `Client commands (talk to a Vigil server; VIGIL_URL, VIGIL_API_KEY or vigil.config.json):
  scan [url] [options]                          Run a scan, wait for it and judge it (exit 0 passed, 1 gate
                                                failed, 2 failed/cancelled, 3 usage, 4 refused, 5 report not written)
  scans list|show|cancel|export|wait            Your scans; "wait <id>" follows and judges one started earlier
  baselines list|approve|delete                 Visual baselines; "approve <scan_id> --page /pricing" accepts a change
  init [--force]                                Write a commented vigil.config.yaml in the current directory
  usage                                         Quota use this period
  billing status                                Plan and subscription
  live                                          Print live usage events`;

/** Commands of the server install (src/operator), which the client answers with where they live. */
export const SERVER_COMMAND_NAMES = ['serve', 'tenants', 'keys'] as const;

const elsewhere =
  (name: string): Command =>
  async () => {
    throw new UsageError(`"vigil ${name}" is a server command: it is not in this client. Run it where Vigil runs (see docs/deploy.md).`);
  };

export const CLIENT_CLI: CommandLine = {
  help: commandLineHelp([CLIENT_COMMANDS_HELP, 'The server and its operator commands are not in this client: they run where Vigil runs (see docs/deploy.md).']),
  commands: { ...CLIENT_COMMANDS, ...Object.fromEntries(SERVER_COMMAND_NAMES.map((name) => [name, elsewhere(name)])) },
};
