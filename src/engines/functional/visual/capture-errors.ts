/**
 * A failed capture explained in Vigil's words: what happened to the page and what to do, never a
 * raw Playwright message ("page.screenshot: Timeout 30000ms exceeded...").
 */

/** Why the page's screenshot failed, for its visual task (`timeoutS`: the page's options.timeout). */
export function captureFailure(err: unknown, timeoutS: number): string {
  const raw = err instanceof Error ? err.message : String(err);
  const first = raw
    .split('\n')[0]
    .replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, '')
    .replace(/^Protocol error \([^)]*\): /, '');
  if (/Timeout \d+ms exceeded|timed out/i.test(raw)) {
    return `the page's screenshot did not finish within options.timeout (${timeoutS} s); a very tall or busy page may need a larger timeout`;
  }
  if (/Content[- ]Security[- ]Policy/i.test(raw)) {
    return "the page's Content-Security-Policy refused what the capture needed; the page was not captured";
  }
  if (/Execution context was destroyed|navigat/i.test(raw)) {
    return 'the page navigated away while it was being captured (a redirect or a script of the page moved it); capture its final URL instead';
  }
  if (/Target (page, context or browser )?(has been )?closed|has been closed|Target crashed|crash/i.test(raw)) {
    return 'the browser tab closed or crashed while the page was being captured';
  }
  if (/larger than|too large|exceeds|out of memory/i.test(raw)) {
    return 'the page is too large to capture in one image; mask or exclude its endless part, or capture a shorter page';
  }
  return `the page could not be captured (${first})`;
}
