/**
 * Names for the API's bodies the pages pass around, all taken from the generated description
 * (src/api-client, `npm run generate:client`): a field the API adds, renames or retypes shows here.
 * Type-only imports: nothing of them ends up in the bundle.
 */
import type { PathParams, RequestBody, ResponseBody } from '../../src/api-client/calls.js';
import type { components } from '../../src/api-client/openapi.generated.js';
import type { UsageUpdate as UsageUpdateMessage } from '../../src/events/usage-updates.js';

export type ScanListBody = ResponseBody<'get', '/scans'>;
export type ScanListItem = ScanListBody['scans'][number];
export type Results = ResponseBody<'get', '/scan/{id}/results'>;
export type Task = NonNullable<Results['tasks']>[number];
export type SecurityCheck = NonNullable<NonNullable<Results['security']>['checks']>[number];
export type VisualPage = components['schemas']['VisualComparison'];
export type PerformancePage = components['schemas']['PerformancePage'];
/** A budget judged on a page (options.budgets): a missed one carries its fingerprint and triage. */
export type BudgetLine = components['schemas']['BudgetLine'];
/** A format of the report registry (GET /scan/{id}/reports/{format}). */
export type ReportFormatId = PathParams<'get', '/scan/{id}/reports/{format}'>['format'];
export type ComplianceReport = components['schemas']['ComplianceReport'];
export type Usage = ResponseBody<'get', '/usage'>;
export type CheckoutPlan = NonNullable<RequestBody<'post', '/billing/checkout'>['plan']>;
export type SignupOptions = ResponseBody<'get', '/billing/signup'>;
export type IssuedKey = ResponseBody<'post', '/billing/checkout-sessions/{session_id}/claim'>;
export type RotatedKey = ResponseBody<'post', '/keys/rotate'>;
export type NotificationSettingsIn = RequestBody<'put', '/notifications'>;
export type SsoConfigIn = RequestBody<'put', '/sso/config'>;
export type SsoConfig = ResponseBody<'get', '/sso/config'>;
export type EmailDomain = ResponseBody<'get', '/sso/domains'>['domains'][number];
export type Baseline = ResponseBody<'post', '/baselines/approve'>;
export type ScanRequest = RequestBody<'post', '/scan'>;
export type ErrorBody = components['schemas']['ErrorBody'];
/** A live-socket message (the socket is not part of the OpenAPI document). */
export type UsageUpdate = UsageUpdateMessage;
