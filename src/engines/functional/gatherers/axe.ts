/** The axe gatherer: the declared axe-core run once in the loaded page with the profile's rules (accessibility/gather.ts). */
import { gatherAccessibility, type AxeGathered } from '../accessibility/gather.js';
import type { Gatherer } from '../types.js';

export type AxeResults = AxeGathered;

export const axeGatherer: Gatherer<'axe'> = {
  artifact: 'axe',
  gather: ({ page, scan }) => gatherAccessibility(page, scan.options),
};
