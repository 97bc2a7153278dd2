#!/usr/bin/env node
// The server install's `vigil` (the root package.json's bin, `npm start`, the container image):
// serve, tenants and keys, and every client command. The client package's `vigil` is src/cli/main.ts.
import { runCommandLine } from '../cli/command-line.js';
import { OPERATOR_CLI } from './cli.js';

process.exitCode = await runCommandLine(process.argv.slice(2), OPERATOR_CLI);
