#!/usr/bin/env node
// The client's `vigil` (what packages/cli bundles): the client commands only. The server install's
// `vigil`, with serve, tenants and keys besides, is src/operator/main.ts.
import { runCommandLine } from './command-line.js';
import { CLIENT_CLI } from './commands/index.js';

process.exitCode = await runCommandLine(process.argv.slice(2), CLIENT_CLI);
