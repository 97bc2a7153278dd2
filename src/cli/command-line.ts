/** Runs one `vigil` command line against a command table: help, version, unknown commands, errors and exit codes. */
import { didYouMean, UsageError } from './usage-error.js';
import { cliVersion } from './version.js';

export const EXIT = { ok: 0, findings: 1, scanFailed: 2, usage: 3, refused: 4, output: 5 } as const;

export type Command = (args: string[]) => Promise<number>;

/** What one `vigil` binary offers: the client's, or the server install's (the client's commands and the operator's). */
export interface CommandLine {
  /** Printed by `vigil --help`, and after an unknown command. */
  help: string;
  commands: Record<string, Command>;
}

/** `vigil --help`: the usage line, the blocks of commands, and where to read more. */
export function commandLineHelp(blocks: string[]): string {
  return `Usage: vigil <command> [options]

${blocks.join('\n\n')}

Run "vigil <command> --help" for a command's options and examples; "vigil --version" prints the version.`;
}

export async function runCommandLine(argv: string[], line: CommandLine): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${line.help}\n`);
    return name ? EXIT.ok : EXIT.usage;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    process.stdout.write(`${cliVersion()}\n`);
    return EXIT.ok;
  }
  const command = Object.hasOwn(line.commands, name) ? line.commands[name] : undefined;
  if (!command) {
    const what = name.startsWith('-') ? 'option' : 'command';
    process.stderr.write(
      `vigil: unknown ${what} "${name}"${name.startsWith('-') ? didYouMean(name.replace(/^-+/, ''), ['help', 'version'], '--') : didYouMean(name, Object.keys(line.commands))}\n\n${line.help}\n`,
    );
    return EXIT.usage;
  }
  try {
    return await command(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`vigil: ${error.message}\n`);
      return EXIT.usage;
    }
    process.stderr.write(`vigil: ${(error as Error).message}\n`);
    return EXIT.scanFailed;
  }
}
