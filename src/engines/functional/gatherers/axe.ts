/** The axe gatherer: axe-core run once in the loaded page with the profile's tags. */
import { AxeBuilder } from '@axe-core/playwright';
import { PROFILE_TAGS } from '../accessibility/score.js';
import type { Gatherer } from '../types.js';

export type AxeResults = Awaited<ReturnType<AxeBuilder['analyze']>>;

export const axeGatherer: Gatherer<'axe'> = {
  artifact: 'axe',
  async gather({ page, scan }) {
    return new AxeBuilder({ page: page as never }).withTags([...PROFILE_TAGS[scan.options.accessibility_profile]]).analyze();
  },
};
