/**
 * The functional engine's registration list. Gatherers run in this order on each page load (the
 * metric load first, so nothing else disturbs it; the screenshot after axe; last the throttled
 * metrics, whose simulation ran meanwhile); an audit runs as soon as the artifacts it requires are
 * gathered, and its tasks appear in this order.
 */
import { accessibilityAudit } from './audits/accessibility.js';
import { performanceAudit } from './audits/performance.js';
import { visualAudit } from './audits/visual.js';
import { axeGatherer } from './gatherers/axe.js';
import { linksGatherer } from './gatherers/links.js';
import { loadGatherer, throttledGatherer } from './gatherers/load.js';
import { screenshotGatherer } from './gatherers/screenshot.js';
import { settleGatherer } from './gatherers/settle.js';
import type { Audit, Gatherer } from './types.js';

export const GATHERERS: readonly Gatherer[] = [loadGatherer, settleGatherer, linksGatherer, axeGatherer, screenshotGatherer, throttledGatherer];

export const AUDITS: readonly Audit[] = [performanceAudit as Audit, accessibilityAudit as Audit, visualAudit as Audit];
