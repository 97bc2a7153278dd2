/** The axe gatherer: the declared axe-core run once in the loaded page with the profile's rules (accessibility/gather.ts). */
import { gatherAccessibility } from '../accessibility/gather.js';
import type { AxeResults } from '../artifacts.js';
import type { Gatherer } from '../types.js';

export type { AxeResults };

export const axeGatherer: Gatherer<'axe'> = {
  artifact: 'axe',
  gather: ({ page, scan }) => gatherAccessibility(page, scan.options),
};
