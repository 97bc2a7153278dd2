/** Schemas of the baseline routes: list, approve one page of a finished scan, delete. */
import { Type } from '@sinclair/typebox';
import { BranchName, LIMITS } from './scan-request.js';
import { AUTHENTICATED_ERRORS, PagingQuery, StringEnum } from './common.js';

const EXAMPLE = {
  baseline_id: 'bln_Qm9vdHN0cmFwcGVk',
  page_key: '/pricing?plan=pro',
  viewport: '1280x800',
  device: 'desktop',
  branch: 'main',
  page_url: 'https://pr-12.preview.example.com/pricing?plan=pro',
  scan_id: 'scn_7fJ2kq0aB1c9',
  screenshot: 'https://vigil.example.com/api/v1/artifacts/art_x1?tenant=acme&expires=1795000000&signature=...',
  created_at: '2026-11-20T09:12:00.000Z',
  updated_at: '2026-11-24T08:01:00.000Z',
};

export const BaselineBody = Type.Object(
  {
    baseline_id: Type.String({ description: 'Names the baseline in DELETE /baselines/{baseline_id}' }),
    page_key: Type.String({ description: "The page's path and query, or its label from options.pages (the host is never part of it)" }),
    viewport: Type.String({ description: 'WIDTHxHEIGHT' }),
    device: StringEnum(['desktop', 'mobile'] as const),
    branch: Type.String({ description: 'options.branch of the scans that use it (the default branch: main unless options.default_branch says otherwise)' }),
    page_url: Type.Union([Type.String(), Type.Null()], {
      description: 'Where the screenshot was taken (any host); null for baselines kept from before page keys',
    }),
    scan_id: Type.Union([Type.String(), Type.Null()], { description: 'The scan whose screenshot it is, when known' }),
    screenshot: Type.String({ description: 'Signed, expiring link to the baseline image' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time', description: 'When the screenshot was last replaced' }),
  },
  { examples: [EXAMPLE] },
);

export const BaselineListQuery = Type.Object({
  ...PagingQuery,
  branch: Type.Optional(BranchName('Only baselines of this branch')),
  page_key: Type.Optional(
    Type.String({ minLength: 1, maxLength: LIMITS.urlLength, description: 'Only baselines of this page key (path and query, or label)' }),
  ),
});

export const BaselineList = Type.Object(
  { baselines: Type.Array(BaselineBody), total: Type.Integer(), page: Type.Integer(), per_page: Type.Integer(), total_pages: Type.Integer() },
  { examples: [{ baselines: [EXAMPLE], total: 1, page: 1, per_page: 20, total_pages: 1 }] },
);

export const ApproveBaselineBody = Type.Object(
  {
    scan_id: Type.String({ minLength: 1, description: 'A completed functional or full scan of this tenant (an unknown one, of any length, is 404)' }),
    page: Type.String({
      minLength: 1,
      maxLength: LIMITS.urlLength,
      description: "The page, as its page_key (path and query, or label) or its page_url in the scan's visual regression report",
    }),
    branch: Type.Optional(BranchName("The branch to approve it on; default: the scan's branch (options.branch, else its default branch)")),
  },
  {
    additionalProperties: false,
    examples: [
      { scan_id: 'scn_7fJ2kq0aB1c9', page: '/pricing?plan=pro' },
      { scan_id: 'scn_7fJ2kq0aB1c9', page: 'checkout', branch: 'main' },
    ],
  },
);

export const BaselineIdParams = Type.Object({ id: Type.String({ minLength: 1, description: 'baseline_id (an unknown one, of any length, is 404)' }) });

const GATED = { 402: 'FEATURE_NOT_AVAILABLE: baselines are managed on the pro plan and above (upgrade_url says where)' } as const;

export const LIST_ERRORS = { ...AUTHENTICATED_ERRORS, ...GATED, 422: 'Query parameter out of range' };
export const APPROVE_ERRORS = {
  ...AUTHENTICATED_ERRORS,
  ...GATED,
  400: 'Body is not a JSON object',
  404: 'No such scan for this tenant, or the page is not among the pages the scan compared',
  409: 'The scan is not completed (SCAN_NOT_COMPLETE) or not a functional scan (NOT_A_FUNCTIONAL_SCAN)',
  422: 'Body fields missing or invalid',
};
export const DELETE_ERRORS = { ...AUTHENTICATED_ERRORS, ...GATED, 404: 'No such baseline for this tenant' };
