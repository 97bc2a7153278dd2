/**
 * The `devtools` throttling: the device's Lighthouse profile applied in the browser during the
 * metric load only, as Lighthouse applies it (its emulation module's network and CPU throttling:
 * Network.emulateNetworkConditions with the profile's request latency and throughputs, already
 * adjusted by Lighthouse's DevTools factors, and Emulation.setCPUThrottlingRate), then removed so
 * axe and the screenshot run at full speed.
 */
import { clearThrottling, enableCPUThrottling, enableNetworkThrottling } from 'lighthouse/core/lib/emulation.js';
import type { CDPSession, Page } from 'playwright-core';
import type { ThrottlingProfile } from './presets.js';

/** Lighthouse's protocol session, as its emulation functions use it. */
function lighthouseSession(cdp: CDPSession) {
  return {
    sendCommand: (method: string, params?: object) => cdp.send(method as 'Network.enable', params as undefined),
    sendCommandAndIgnore: (method: string, params?: object) => cdp.send(method as 'Network.enable', params as undefined).catch(() => undefined),
  };
}

type LhSession = Parameters<typeof enableNetworkThrottling>[0];

export class DevtoolsThrottle {
  private constructor(private readonly cdp: CDPSession) {}

  /**
   * Throttles the page's network and CPU with `profile` (call before navigating); `disableCache`:
   * the HTTP cache is bypassed meanwhile (a page loaded before starts cold again, as Lighthouse's).
   */
  static async apply(page: Page, profile: ThrottlingProfile, opts: { disableCache?: boolean } = {}): Promise<DevtoolsThrottle> {
    const cdp = await page.context().newCDPSession(page);
    const session = lighthouseSession(cdp) as unknown as LhSession;
    try {
      await cdp.send('Network.enable');
      if (opts.disableCache) await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      await enableNetworkThrottling(session, profile as Parameters<typeof enableNetworkThrottling>[1]);
      await enableCPUThrottling(session, profile as Parameters<typeof enableCPUThrottling>[1]);
    } catch (err) {
      await cdp.detach().catch(() => undefined);
      throw err;
    }
    return new DevtoolsThrottle(cdp);
  }

  /** Removes the throttling (the page runs at full speed again). */
  async release(): Promise<void> {
    await clearThrottling(lighthouseSession(this.cdp) as unknown as LhSession).catch(() => undefined);
    await this.cdp.detach().catch(() => undefined);
  }
}
