/**
 * The server install's `vigil`: the operator's commands (serve, tenants, keys) beside every client
 * command, so `vigil scan` works the same from the server as from the client package.
 */
import { type Command, type CommandLine, commandLineHelp } from '../cli/command-line.js';
import { CLIENT_COMMANDS, CLIENT_COMMANDS_HELP } from '../cli/commands/index.js';
import { UsageError } from '../cli/usage-error.js';
import { ConfigError } from '../app/config.js';

const OPERATOR_COMMANDS_HELP = `Server and operator commands:
  serve [--role all|api|worker]                 Start Vigil (configuration from the environment)
  tenants create --plan <plan> [--id <id>] [--email <email>]
                                                Create a tenant and print its API key once
  tenants list                                  List tenants with their plan and key prefix
  keys rotate --tenant <id>                     Issue a new key for a tenant and revoke the old one`;

/** An invalid server configuration is a usage error: one line, exit 3. */
const configErrorsAsUsage =
  (command: Command): Command =>
  async (args) => {
    try {
      return await command(args);
    } catch (error) {
      throw error instanceof ConfigError ? new UsageError(error.message) : error;
    }
  };

// Loaded on demand: a client command run from the server install does not load the server's modules.
const OPERATOR_COMMANDS: Record<string, Command> = {
  serve: configErrorsAsUsage(async (args) => (await import('./serve.js')).serveCommand(args)),
  tenants: configErrorsAsUsage(async (args) => (await import('./tenants.js')).tenantsCommand(args)),
  keys: configErrorsAsUsage(async (args) => (await import('./tenants.js')).keysCommand(args)),
};

export const OPERATOR_CLI: CommandLine = {
  help: commandLineHelp([CLIENT_COMMANDS_HELP, OPERATOR_COMMANDS_HELP]),
  commands: { ...OPERATOR_COMMANDS, ...CLIENT_COMMANDS },
};
