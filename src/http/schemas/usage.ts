/** Schemas of the usage routes: current usage, alerts and history. */
import { Type } from '@sinclair/typebox';
import { ALERT_TYPES } from '../../domain/usage.js';
import { PagingQuery, StringEnum } from './common.js';

const NullableInt = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });

export const UsageBody = Type.Object(
  {
    tenant_id: Type.String(),
    plan: Type.String(),
    scans_used: Type.Integer({ description: 'Functional scans counted this period' }),
    scans_limit: NullableInt('Functional scans allowed per period; null = unlimited'),
    scans_remaining: NullableInt('Functional scans left this period; null = unlimited'),
    security_scan_count: Type.Integer({ description: 'Security scans counted this period' }),
    monthly_security_scan_quota: NullableInt('Security scans allowed per period (0 on free); null = unlimited'),
    security_scans_remaining: NullableInt('Security scans left this period; null = unlimited'),
    api_specifications_used: Type.Integer({
      description:
        'New API specifications scanned this period: the first security or full scan of a specification in a period counts one (see docs/api.md "API specification quota" for how a specification is identified)',
    }),
    api_specifications_limit: NullableInt('New API specifications allowed per period (free 1, pro 5); null = unlimited'),
    approaching_limit: Type.Boolean({ description: 'A quota is more than 80% used' }),
    quota_reset_date: Type.String({ format: 'date-time', description: 'When the quotas reset (end of the period)' }),
    period_start: Type.String({ format: 'date-time' }),
    period_end: Type.String({ format: 'date-time' }),
  },
  {
    examples: [
      {
        tenant_id: 'acme',
        plan: 'pro',
        scans_used: 412,
        scans_limit: 500,
        scans_remaining: 88,
        security_scan_count: 40,
        monthly_security_scan_quota: 100,
        security_scans_remaining: 60,
        api_specifications_used: 3,
        api_specifications_limit: 5,
        approaching_limit: true,
        quota_reset_date: '2026-12-01T00:00:00.000Z',
        period_start: '2026-11-01T00:00:00.000Z',
        period_end: '2026-12-01T00:00:00.000Z',
      },
    ],
  },
);

export const AlertsQuery = Type.Object({ ...PagingQuery, type: Type.Optional(StringEnum(ALERT_TYPES, { description: 'Only alerts of this type' })) });
export const HistoryQuery = Type.Object(PagingQuery);

const Alert = Type.Object({
  alert_id: Type.String(),
  type: StringEnum(ALERT_TYPES),
  quota: Type.String({
    description: 'functional, security, specifications (new API specifications; scans_used and scans_limit then count specifications), or all (quota_reset)',
  }),
  message: Type.String(),
  scans_used: Type.Integer(),
  scans_limit: NullableInt("The quota's limit when the alert fired"),
  period_start: Type.String({ format: 'date-time' }),
  triggered_at: Type.String({ format: 'date-time' }),
});

const HistoryRow = Type.Object({
  period_start: Type.String({ format: 'date-time' }),
  period_end: Type.String({ format: 'date-time' }),
  current: Type.Boolean({ description: 'The period in progress' }),
  plan: Type.String({ description: 'Plan of the period (the current plan for the current period)' }),
  functional_scans_used: Type.Integer(),
  functional_scans_limit: NullableInt('null = unlimited'),
  security_scans_used: Type.Integer(),
  security_scans_limit: NullableInt('null = unlimited'),
  api_specifications_used: Type.Integer(),
  api_specifications_limit: NullableInt('null = unlimited'),
});

export const AlertList = Type.Object(
  { alerts: Type.Array(Alert), total: Type.Integer(), page: Type.Integer(), per_page: Type.Integer(), total_pages: Type.Integer() },
  {
    examples: [
      {
        alerts: [
          {
            alert_id: 'alt_x1',
            type: 'approaching_limit',
            quota: 'functional',
            message: 'Functional scan usage is above 80% of the quota: 401 of 500 used this period',
            scans_used: 401,
            scans_limit: 500,
            period_start: '2026-11-01T00:00:00.000Z',
            triggered_at: '2026-11-20T09:12:00.000Z',
          },
        ],
        total: 1,
        page: 1,
        per_page: 20,
        total_pages: 1,
      },
    ],
  },
);

export const HistoryList = Type.Object(
  { periods: Type.Array(HistoryRow), total: Type.Integer(), page: Type.Integer(), per_page: Type.Integer(), total_pages: Type.Integer() },
  {
    examples: [
      {
        periods: [
          {
            period_start: '2026-11-01T00:00:00.000Z',
            period_end: '2026-12-01T00:00:00.000Z',
            current: true,
            plan: 'pro',
            functional_scans_used: 12,
            functional_scans_limit: 500,
            security_scans_used: 3,
            security_scans_limit: 100,
            api_specifications_used: 2,
            api_specifications_limit: 5,
          },
        ],
        total: 1,
        page: 1,
        per_page: 20,
        total_pages: 1,
      },
    ],
  },
);
