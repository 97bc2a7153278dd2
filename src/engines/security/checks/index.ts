/** Registered checks, one line each. */
import type { CheckDefinition } from '../types.js';
import { authEnforcement } from './auth-enforcement.js';
import { sqlInjection } from './sql-injection.js';
import { dataExposure } from './data-exposure.js';
import { misconfiguration } from './misconfiguration.js';
import { inventory } from './inventory.js';

export const CHECKS: CheckDefinition[] = [
  authEnforcement,
  sqlInjection,
  dataExposure,
  misconfiguration,
  inventory,
];
