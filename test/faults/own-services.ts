/**
 * PostgreSQL and Redis instances of a fault test's own, on free loopback ports, so that restarting or
 * stopping them never touches the machine's shared services (or another test's). Built from the
 * machine's server binaries (Debian's postgresql and redis-server, as CI has them).
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  return version ? join(root, version, 'bin') : undefined;
}

/** Why this machine cannot run a PostgreSQL of the test's own, or undefined when it can. */
export function ownPostgresUnavailable(): string | undefined {
  if (!postgresBin()) return 'no PostgreSQL server binaries under /usr/lib/postgresql';
  try {
    execFileSync('id', ['postgres'], { stdio: 'ignore' });
  } catch {
    return 'no postgres system user to run the server as';
  }
  return undefined;
}

export interface OwnPostgres {
  url: string;
  port: number;
  /** `pg_ctl restart -m <mode>`: the server ends every connection and comes back. */
  restart(mode: 'fast' | 'immediate'): Promise<void>;
  stop(mode: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  dispose(): Promise<void>;
}

export async function ownPostgres(): Promise<OwnPostgres> {
  const bin = postgresBin()!;
  const dir = mkdtempSync(join(tmpdir(), 'vigil-own-pg-'));
  chmodSync(dir, 0o755);
  const data = join(dir, 'data');
  const port = await freePort();
  const asPostgres = (command: string, args: string[]) => {
    execFileSync('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  };
  chownSync(dir, uidOf('postgres'), gidOf('postgres'));
  asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  const pgCtl = (...args: string[]) => asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', ...args]);
  const ready = async () => {
    for (let i = 0; i < 120; i++) {
      try {
        execFileSync(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q'], { stdio: 'ignore' });
        return;
      } catch {
        await sleep(250);
      }
    }
    throw new Error(`own PostgreSQL on port ${port} did not become ready`);
  };
  pgCtl('start');
  await ready();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async restart(mode) {
      pgCtl('restart', '-m', mode);
      await ready();
    },
    async stop(mode) {
      pgCtl('stop', '-m', mode);
    },
    async start() {
      pgCtl('start');
      await ready();
    },
    async dispose() {
      try {
        pgCtl('stop', '-m', 'immediate');
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function uidOf(user: string): number {
  return Number(execFileSync('id', ['-u', user]).toString().trim());
}

function gidOf(user: string): number {
  return Number(execFileSync('id', ['-g', user]).toString().trim());
}

export interface OwnRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  dispose(): Promise<void>;
}

/** A redis-server of the test's own on a free port, keeping nothing on disk. */
export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ReturnType<typeof spawn> | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    for (let i = 0; i < 80; i++) {
      try {
        execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'ignore' });
        return;
      } catch {
        await sleep(100);
      }
    }
    throw new Error(`own Redis on port ${port} did not start`);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((r) => running.once('exit', r));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, start, stop, dispose: stop };
}
