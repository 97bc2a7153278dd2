import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUILT_CLI = join(ROOT, 'dist/operator/main.js');

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function newestIn(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestIn(path) : mtime(path));
  }
  return newest;
}

/**
 * `npm test` builds first (scripts/ensure.mjs), so the CLI normally runs from dist: a child
 * process then starts in a fraction of the time tsx needs to compile the sources. A stale or
 * missing build (vitest run directly after an edit) falls back to the sources.
 */
const builtCliIsFresh = mtime(BUILT_CLI) >= newestIn(join(ROOT, 'src'));

/**
 * Resolves with the exit code once the child has exited and its stdout and stderr have ended.
 * 'exit' alone can come before the last chunks of output are read (a CLI's closing summary line
 * went missing that way under load); 'close' alone never comes while a grandchild still holds the
 * pipes, so after the exit the streams get a short grace period to end.
 */
export function exitedAndDrained(child: ChildProcess, graceMs = 2_000): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('close', (code) => resolve(code));
    child.once('exit', (code) => setTimeout(() => resolve(code), graceMs).unref());
  });
}

export interface VigilProcess {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the first output line matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

/**
 * Runs the real `vigil` command as a child process (the build when fresh, else the sources through tsx),
 * in the repository root or in `opts.cwd` (to test what the CLI finds in its working directory).
 */
export function runVigil(args: string[], env: Record<string, string | undefined>, opts: { cwd?: string } = {}): VigilProcess {
  if (builtCliIsFresh) return spawnVigil([BUILT_CLI, ...args], env, opts.cwd);
  return runScript('src/operator/main.ts', args, env, opts);
}

/** Runs a TypeScript entry point of this repository (through tsx) as a child process. */
export function runScript(script: string, args: string[], env: Record<string, string | undefined>, opts: { cwd?: string } = {}): VigilProcess {
  if (!opts.cwd) return spawnVigil(['--import', 'tsx', script, ...args], env);
  // Elsewhere than the repository, tsx and the script are named by absolute paths.
  return spawnVigil(['--import', pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href, join(ROOT, script), ...args], env, opts.cwd);
}

function spawnVigil(nodeArgs: string[], env: Record<string, string | undefined>, cwd = ROOT): VigilProcess {
  return runCommand(process.execPath, nodeArgs, env, cwd);
}

/** Runs any command as a child process (a target written in another language), its output collected like the CLI's. */
export function runCommand(command: string, args: string[], env: Record<string, string | undefined>, cwd = ROOT): VigilProcess {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, VIGIL_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = exitedAndDrained(child);
  return {
    child,
    output: () => out,
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(out);
          if (match) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(match);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; output so far:\n${out}`));
        }, timeoutMs);
        listeners.add(check);
        check();
        void exited.then(() => {
          if (listeners.has(check)) {
            listeners.delete(check);
            clearTimeout(timer);
            reject(new Error(`process exited before ${pattern}; output:\n${out}`));
          }
        });
      });
    },
  };
}
