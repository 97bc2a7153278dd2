/** The CLI's version: the client package's (or the repository's) package.json, as the reports name the tool. */
export { toolVersion as cliVersion } from '../reports/tool-version.js';
