/**
 * Device emulation of every page of a scan (its browser context: the load, axe and the screenshot
 * all see it): `device: mobile` is Lighthouse's Moto G Power (screen, pixel ratio, user agent,
 * touch, mobile viewport); desktop is options.viewport at pixel ratio 1 with Chromium's own user
 * agent, as before.
 */
import type { BrowserContextOptions } from 'playwright-core';
import type { ScanOptions } from '../../../domain/scan.js';
import { presetFor } from './presets.js';

export type Emulation = Pick<BrowserContextOptions, 'viewport' | 'deviceScaleFactor' | 'userAgent' | 'hasTouch' | 'isMobile'>;

/** The viewport pages are rendered at (CSS pixels): the mobile preset's screen, else options.viewport. */
export function effectiveViewport(options: Pick<ScanOptions, 'device' | 'viewport'>): { width: number; height: number } {
  if (options.device !== 'mobile') return options.viewport;
  const { width, height } = presetFor('mobile').screen;
  return { width, height };
}

/** The browser context options that emulate the scan's device. */
export function contextEmulation(options: Pick<ScanOptions, 'device' | 'viewport'>): Emulation {
  if (options.device !== 'mobile') return { viewport: options.viewport };
  const preset = presetFor('mobile');
  return {
    viewport: effectiveViewport(options),
    deviceScaleFactor: preset.screen.deviceScaleFactor,
    isMobile: preset.screen.mobile,
    hasTouch: true,
    userAgent: preset.userAgent,
  };
}
