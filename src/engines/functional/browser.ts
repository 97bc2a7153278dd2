import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { chromium, type Browser } from 'playwright-core';
import { EngineFailure } from '../engine.js';

/**
 * One Chromium per process, shared by every functional scan in it. Pages run in fresh
 * contexts; the browser is relaunched after a crash and recycled after RECYCLE_AFTER_PAGES
 * pages (once its in-flight pages are done) to bound memory growth. Never downloads a browser.
 */

export const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--disable-default-apps',
  '--disable-domain-reliability',
  '--disable-breakpad',
  '--no-default-browser-check',
  '--mute-audio',
  '--font-render-hinting=none',
  '--force-color-profile=srgb',
  // WebRTC must not open UDP sockets around the (hosted-mode) proxy.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
];

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
const INSTALL_HINT = 'install with apt-get install chromium or set CHROMIUM_PATH';

/** Default; workers pass VIGIL_BROWSER_RECYCLE_PAGES through the engine options. */
export const RECYCLE_AFTER_PAGES = 200;
let recycleAfter = RECYCLE_AFTER_PAGES;
/** Pages a browser serves before it is replaced (createFunctionalEngine's recycleAfterPages). */
export function setRecycleAfterPages(n: number): void {
  recycleAfter = Math.max(1, Math.floor(n));
}
let launches = 0;
/** Browsers launched by this process so far (restarts after a crash or recycling included). */
export function browserLaunches(): number {
  return launches;
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Debian's /usr/bin/chromium is a shell wrapper that adds flags of its own (extensions,
 * GPU rasterisation); when it is that wrapper, launch the real binary next to it instead.
 */
function unwrap(path: string): string {
  try {
    const head = readFileSync(path, { encoding: 'latin1' }).slice(0, 4096);
    if (!head.startsWith('#!')) return path;
    const m = /LIBDIR=(\/\S+)/.exec(head);
    const app = /APPNAME=(\S+)/.exec(head);
    if (m && app) {
      const real = `${m[1].replace('$APPNAME', app[1])}/${app[1]}`;
      if (isExecutable(real)) return real;
    }
  } catch {
    /* fall through */
  }
  return path;
}

/** The Chromium executable to use, or undefined when none is found (callers log INSTALL_HINT). */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    return resolveChromium(env);
  } catch {
    return undefined;
  }
}

export const CHROMIUM_INSTALL_HINT = INSTALL_HINT;

/** The Chromium executable to use, or a BROWSER_UNAVAILABLE failure saying how to get one. */
export function resolveChromium(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.CHROMIUM_PATH?.trim();
  if (override) {
    if (isExecutable(override)) return unwrap(override);
    throw new EngineFailure(
      'BROWSER_UNAVAILABLE',
      `CHROMIUM_PATH=${override} is not an executable file; ${INSTALL_HINT}`,
    );
  }
  for (const c of CANDIDATES) if (isExecutable(c)) return unwrap(c);
  throw new EngineFailure(
    'BROWSER_UNAVAILABLE',
    `no Chromium found (looked in ${CANDIDATES.join(', ')}); ${INSTALL_HINT}`,
  );
}

/** Pages one scan may run at once: the requested concurrency, capped for the machine. */
export function pageConcurrency(requested: number, cap = Math.max(2, Math.min(8, cpus().length * 2))): number {
  return Math.max(1, Math.min(Math.floor(requested) || 1, cap));
}

interface Slot {
  browser: Browser;
  served: number;
  inFlight: number;
  retired: boolean;
}

let current: Slot | undefined;
let launching: Promise<Slot> | undefined;
const retired = new Set<Slot>();

async function launch(): Promise<Slot> {
  const executablePath = resolveChromium();
  let browser: Browser;
  try {
    browser = await chromium.launch({
      executablePath,
      headless: true,
      args: LAUNCH_ARGS,
      timeout: 30_000,
      // The worker's own shutdown calls closeBrowser(); Playwright still kills the browser
      // when the process exits.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  } catch (err) {
    throw new EngineFailure(
      'BROWSER_UNAVAILABLE',
      `Chromium at ${executablePath} failed to start (${(err as Error).message.split('\n')[0]}); ${INSTALL_HINT}`,
    );
  }
  launches++;
  const slot: Slot = { browser, served: 0, inFlight: 0, retired: false };
  browser.on('disconnected', () => {
    slot.retired = true;
    retired.delete(slot);
    if (current === slot) current = undefined;
  });
  return slot;
}

async function getSlot(): Promise<Slot> {
  if (current && !current.retired && current.browser.isConnected()) return current;
  if (!launching) {
    launching = launch().finally(() => {
      launching = undefined;
    });
    current = await launching;
    return current;
  }
  return launching;
}

function retire(slot: Slot): void {
  slot.retired = true;
  if (current === slot) current = undefined;
  if (slot.inFlight === 0) void slot.browser.close().catch(() => undefined);
  else retired.add(slot);
}

/**
 * Borrow the shared browser for one page. Call the returned `release` when the page's context
 * is closed. Recycles the browser after RECYCLE_AFTER_PAGES pages.
 */
export async function acquireBrowser(): Promise<{ browser: Browser; release: () => void }> {
  const slot = await getSlot();
  slot.inFlight++;
  slot.served++;
  if (slot.served >= recycleAfter) retire(slot);
  let released = false;
  return {
    browser: slot.browser,
    release: () => {
      if (released) return;
      released = true;
      slot.inFlight--;
      if (slot.retired && slot.inFlight === 0) {
        retired.delete(slot);
        void slot.browser.close().catch(() => undefined);
      }
    },
  };
}

/** Close the shared browser (worker shutdown). Safe to call more than once. */
export async function closeBrowser(): Promise<void> {
  const slots = [current, ...retired].filter((s): s is Slot => !!s);
  if (launching) {
    try {
      slots.push(await launching);
    } catch {
      /* launch failed: nothing to close */
    }
  }
  current = undefined;
  retired.clear();
  await Promise.all(slots.map((s) => s.browser.close().catch(() => undefined)));
}
