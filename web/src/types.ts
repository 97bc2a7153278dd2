/**
 * The API's types, taken from the server's own TypeBox schemas and view types (type-only imports: nothing
 * of the server ends up in the bundle). Never written twice: a field the API adds or renames shows here.
 */
import type { Static } from '@sinclair/typebox';
import type { ScanList, ScanStarted, ScanStatusBody, ResultsBody } from '../../src/http/schemas/scans.js';
import type { TaskSchema, SecurityCheckSchema, CheckCoverageSchema, OperationCoverageSchema, AccessibilityViolationSchema, AccessibilityReviewSchema } from '../../src/http/schemas/results.js';
import type { AccessibilityReport as AccessibilityReportSchema } from '../../src/http/schemas/functional.js';
import type { UsageBody, AlertList, HistoryList } from '../../src/http/schemas/usage.js';
import type { BillingStatusBody, CheckoutSession, IssuedKey as IssuedKeySchema, PortalSession, SignupOptions as SignupOptionsSchema, SignupSession } from '../../src/http/schemas/billing.js';
import type { RotatedKey as RotatedKeySchema } from '../../src/http/schemas/tenants.js';
import type { SettingsOut, SettingsIn } from '../../src/http/schemas/notifications.js';
import type { BaselineBody } from '../../src/http/schemas/baselines.js';
import type { ScanRequestSchema } from '../../src/http/schemas/scan-request.js';
import type { ErrorBody as ErrorBodySchema } from '../../src/http/schemas/common.js';
import type { FunctionalReport } from '../../src/domain/results.js';
import type { UsageUpdate as UsageUpdateMessage } from '../../src/events/usage-updates.js';
import type { ScanMode, ScanStatus, Severity } from '../../src/domain/scan.js';

export type { ScanMode, ScanStatus, Severity };
export type ScanListBody = Static<typeof ScanList>;
export type ScanListItem = ScanListBody['scans'][number];
export type Started = Static<typeof ScanStarted>;
export type ScanStatusView = Static<typeof ScanStatusBody>;
export type Results = Static<typeof ResultsBody> & { mode?: ScanMode; url?: string; completed_at?: string | null; created_at?: string; severity_counts?: Partial<Record<Severity, number>> };
export type Task = Static<typeof TaskSchema>;
export type SecurityCheck = Static<typeof SecurityCheckSchema>;
export type CheckCoverage = Static<typeof CheckCoverageSchema>;
export type OperationCoverage = Static<typeof OperationCoverageSchema>;
export type Violation = Static<typeof AccessibilityViolationSchema>;
export type Review = Static<typeof AccessibilityReviewSchema>;
export type AccessibilityReport = Static<typeof AccessibilityReportSchema>;
export type VisualReport = { scan_id: string } & Omit<FunctionalReport['visual_regression'], never>;
export type VisualPage = FunctionalReport['visual_regression']['pages'][number];
export type PerformanceReport = { scan_id: string } & FunctionalReport['performance'];
export type PerformancePage = FunctionalReport['performance']['pages'][number];
export type Usage = Static<typeof UsageBody>;
export type Alerts = Static<typeof AlertList>;
export type History = Static<typeof HistoryList>;
export type BillingStatus = Static<typeof BillingStatusBody>;
export type Checkout = Static<typeof CheckoutSession>;
export type Portal = Static<typeof PortalSession>;
export type SignupOptions = Static<typeof SignupOptionsSchema>;
export type Signup = Static<typeof SignupSession>;
export type IssuedKey = Static<typeof IssuedKeySchema>;
export type RotatedKey = Static<typeof RotatedKeySchema>;
export type NotificationSettings = Static<typeof SettingsOut>;
export type NotificationSettingsIn = Static<typeof SettingsIn>;
export type Baseline = Static<typeof BaselineBody>;
export type ScanRequest = Static<typeof ScanRequestSchema>;
export type ErrorBody = Static<typeof ErrorBodySchema>;
export type UsageUpdate = UsageUpdateMessage;
