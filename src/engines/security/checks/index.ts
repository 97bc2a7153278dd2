/** Registered checks, one line each. */
import type { CheckDefinition } from '../types.js';
import { authEnforcement } from './auth-enforcement.js';
import { jwt } from './jwt.js';
import { bola } from './bola.js';
import { bfla } from './bfla.js';
import { sqlInjection } from './sql-injection.js';
import { nosqlInjection } from './nosql-injection.js';
import { timeInjection } from './time-injection.js';
import { pathTraversal } from './path-traversal.js';
import { ssti } from './ssti.js';
import { xss } from './xss.js';
import { massAssignment } from './mass-assignment.js';
import { dataExposure } from './data-exposure.js';
import { serverErrors } from './server-errors.js';
import { schemaConformance } from './schema-conformance.js';
import { rateLimit } from './rate-limit.js';
import { misconfiguration } from './misconfiguration.js';
import { inventory } from './inventory.js';
import { httpMethods } from './http-methods.js';
import { plainHttp } from './plain-http.js';
import { openRedirect } from './open-redirect.js';
import { ssrf } from './ssrf.js';
import { accountEnumeration } from './account-enumeration.js';
import { resourceConsumption } from './resource-consumption.js';

export const CHECKS: CheckDefinition[] = [
  authEnforcement,
  jwt,
  bola,
  bfla,
  sqlInjection,
  nosqlInjection,
  timeInjection,
  pathTraversal,
  ssti,
  xss,
  massAssignment,
  dataExposure,
  serverErrors,
  schemaConformance,
  rateLimit,
  misconfiguration,
  httpMethods,
  plainHttp,
  openRedirect,
  inventory,
  ssrf,
  accountEnumeration,
  resourceConsumption,
];
