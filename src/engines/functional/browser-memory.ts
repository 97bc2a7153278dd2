import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';

/**
 * The memory one Chromium holds: the proportional set size (PSS) of each of its processes, summed.
 * The processes are the ones the browser itself lists (SystemInfo.getProcessInfo: browser, renderers,
 * GPU, network and storage services), so two browsers in one process are told apart. PSS, not RSS:
 * Chromium's processes share most of their pages, and RSS would count them once per process.
 * Linux only (/proc); elsewhere, and for a process that has just exited, it counts 0.
 */
export async function chromiumMemoryBytes(browser: Browser): Promise<number> {
  const session = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = (await session.send('SystemInfo.getProcessInfo' as never)) as { processInfo: Array<{ id: number }> };
    const sizes = await Promise.all(processInfo.map((p) => processPssBytes(p.id)));
    return sizes.reduce((sum, n) => sum + n, 0);
  } finally {
    await session.detach().catch(() => undefined);
  }
}

async function processPssBytes(pid: number): Promise<number> {
  try {
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = /^Pss:\s+(\d+) kB/m.exec(rollup);
    return kb ? Number(kb[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}
