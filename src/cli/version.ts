import { toolVersion } from '../reports/tool-version.js';

/** Written in by the client package's build (packages/cli/build.mjs defines it from that package's package.json). */
declare const VIGIL_CLI_VERSION: string | undefined;

/** The CLI's version, as `vigil --version` prints it and the reports name the tool: the client package's, or the server install's. */
export function cliVersion(): string {
  return typeof VIGIL_CLI_VERSION === 'string' ? VIGIL_CLI_VERSION : toolVersion();
}
