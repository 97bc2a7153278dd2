/**
 * The corpus server in a process of its own (the benchmark's pages must not share the measured
 * process's CPU): prints `{"url": ...}` on its first stdout line and serves until killed. Edits are
 * set over HTTP: POST /__corpus/edit?kind=text|colour|layout (anything else clears).
 */
import { prepareCorpus } from './prepare.js';
import { startCorpusServer } from './server.js';

prepareCorpus();
const server = await startCorpusServer({ port: Number(process.env.CORPUS_PORT ?? 0) });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
const stop = () => void server.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The parent holds our stdin: when it ends (the benchmark ended or was killed), so does the server.
process.stdin.on('end', stop);
process.stdin.resume();
