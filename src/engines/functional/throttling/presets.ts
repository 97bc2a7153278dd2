/**
 * Lighthouse's device presets, read from the installed Lighthouse package (never copied here): the
 * desktop and mobile (Moto G Power) screen emulation, user agents and throttling profiles
 * (desktopDense4G, mobileSlow4G), including what `devtools` throttling sends to Chromium (Lighthouse's
 * request latency and download/upload throughput, already adjusted by its DevTools factors on
 * mobile; its desktop preset sets none, so desktop `devtools` throttles the CPU only, at 1x).
 */
import { screenEmulationMetrics, throttling as LH_THROTTLING, userAgents } from 'lighthouse/core/config/constants.js';
import type { ScanOptions } from '../../../domain/scan.js';

export type Device = ScanOptions['device'];

/** One throttling profile, as Lighthouse's settings.throttling. */
export interface ThrottlingProfile {
  /** Simulated round trip (ms). */
  rttMs: number;
  /** Simulated throughput (Kbps). */
  throughputKbps: number;
  cpuSlowdownMultiplier: number;
  /** devtools: latency added to each request (mobile: rttMs x 3.75); 0: not throttled (Lighthouse's desktop). */
  requestLatencyMs: number;
  /** devtools: download throughput (mobile: throughputKbps x 0.9); 0: not throttled. */
  downloadThroughputKbps: number;
  /** devtools: upload throughput (mobile: 750 x 0.9); 0: not throttled. */
  uploadThroughputKbps: number;
}

export interface DevicePreset {
  device: Device;
  /** Lighthouse's screen emulation (CSS pixels). */
  screen: { width: number; height: number; deviceScaleFactor: number; mobile: boolean };
  userAgent: string;
  throttling: ThrottlingProfile;
}

/** Lighthouse's DevTools adjustment factors (applied to RTT and throughput for `devtools`). */
export const DEVTOOLS_RTT_ADJUSTMENT_FACTOR: number = LH_THROTTLING.DEVTOOLS_RTT_ADJUSTMENT_FACTOR;
export const DEVTOOLS_THROUGHPUT_ADJUSTMENT_FACTOR: number = LH_THROTTLING.DEVTOOLS_THROUGHPUT_ADJUSTMENT_FACTOR;

const screen = (s: { width?: number; height?: number; deviceScaleFactor?: number; mobile?: boolean }) => ({
  width: s.width!,
  height: s.height!,
  deviceScaleFactor: s.deviceScaleFactor!,
  mobile: !!s.mobile,
});

/** Lighthouse's profile as it is (a 0 DevTools value is "unset": Lighthouse's desktop preset throttles no network under `devtools`). */
const profile = (p: typeof LH_THROTTLING.desktopDense4G): ThrottlingProfile => ({
  rttMs: p.rttMs,
  throughputKbps: p.throughputKbps,
  cpuSlowdownMultiplier: p.cpuSlowdownMultiplier,
  requestLatencyMs: p.requestLatencyMs,
  downloadThroughputKbps: p.downloadThroughputKbps,
  uploadThroughputKbps: p.uploadThroughputKbps,
});

export const PRESETS: Record<Device, DevicePreset> = {
  desktop: {
    device: 'desktop',
    screen: screen(screenEmulationMetrics.desktop),
    userAgent: userAgents.desktop,
    throttling: profile(LH_THROTTLING.desktopDense4G),
  },
  mobile: {
    device: 'mobile',
    screen: screen(screenEmulationMetrics.mobile),
    userAgent: userAgents.mobile,
    throttling: profile(LH_THROTTLING.mobileSlow4G),
  },
};

/** The preset of a scan's device. */
export function presetFor(device: Device): DevicePreset {
  return PRESETS[device];
}
