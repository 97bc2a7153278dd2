/** Schemas of the suppression routes (triage): list, create by fingerprint prefix, delete. */
import { Type } from '@sinclair/typebox';
import { MIN_FINGERPRINT_PREFIX, REASON_MAX_LENGTH } from '../../domain/suppressions.js';
import { LIMITS } from './scan-request.js';
import { AUTHENTICATED_ERRORS, PagingQuery } from './common.js';

const EXAMPLE = {
  suppression_id: 'sup_Qm9vdHN0cmFwcGVk',
  fingerprint: '3f2a9c0d41b7e5a09c1d2e3f4a5b6c7d',
  target: 'https://api.example.com',
  reason: 'Public profiles by design (SEC-142)',
  author: 'dana@example.com',
  created_at: '2026-11-20T09:12:00.000Z',
  expires_at: '2027-03-31T00:00:00.000Z',
  active: true,
};

export const SuppressionBody = Type.Object(
  {
    suppression_id: Type.String({ description: 'Names the suppression in DELETE /suppressions/{suppression_id}' }),
    fingerprint: Type.String({ description: 'The full fingerprint of the finding (32 hex characters), as results carry it in `tasks[].fingerprint`' }),
    target: Type.Union([Type.String(), Type.Null()], { description: 'Only scans of this target URL; null: every target of the tenant' }),
    reason: Type.String({ description: 'Why the finding is accepted' }),
    author: Type.String({ description: "Who made it, as the audit log names the actor: a member's email or an API key's prefix" }),
    created_at: Type.String({ format: 'date-time' }),
    expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it stops applying; null: until deleted' }),
    active: Type.Boolean({ description: 'False once expires_at has passed: the finding fails gates again' }),
  },
  { title: 'Suppression', examples: [EXAMPLE] },
);

export const SuppressionListQuery = Type.Object({ ...PagingQuery });

export const SuppressionList = Type.Object(
  { suppressions: Type.Array(SuppressionBody), total: Type.Integer(), page: Type.Integer(), per_page: Type.Integer(), total_pages: Type.Integer() },
  { examples: [{ suppressions: [EXAMPLE], total: 1, page: 1, per_page: 20, total_pages: 1 }] },
);

export const CreateSuppressionBody = Type.Object(
  {
    fingerprint: Type.String({
      pattern: `^[0-9a-fA-F]{${MIN_FINGERPRINT_PREFIX},64}$`,
      description: `A finding's fingerprint, or any prefix of it of at least ${MIN_FINGERPRINT_PREFIX} hex characters that names one finding of this tenant's recent scans (the CLI prints 12); it is stored in full`,
    }),
    reason: Type.String({
      minLength: 1,
      maxLength: REASON_MAX_LENGTH,
      pattern: '\\S',
      description: `Why the finding is accepted (1-${REASON_MAX_LENGTH} characters)`,
    }),
    expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'When it stops applying (must be in the future); default: until deleted' })),
    target: Type.Optional(
      Type.String({ format: 'uri', minLength: 1, maxLength: LIMITS.urlLength, description: 'Only scans of this target URL; default: every target' }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { fingerprint: '3f2a9c0d41b7', reason: 'Public profiles by design (SEC-142)' },
      { fingerprint: '3f2a9c0d', reason: 'False positive, see SEC-150', expires_at: '2027-03-31T00:00:00Z', target: 'https://api.example.com' },
    ],
  },
);

export const SuppressionIdParams = Type.Object({ id: Type.String({ minLength: 1, description: 'suppression_id (an unknown one, of any length, is 404)' }) });

export const LIST_ERRORS = { ...AUTHENTICATED_ERRORS, 422: 'Query parameter out of range' };
export const CREATE_ERRORS = {
  ...AUTHENTICATED_ERRORS,
  400: 'Body is not a JSON object',
  422: 'Body fields missing or invalid, expires_at not in the future, or the fingerprint names no finding of this tenant or more than one (FINGERPRINT_UNKNOWN, FINGERPRINT_AMBIGUOUS)',
};
export const DELETE_ERRORS = { ...AUTHENTICATED_ERRORS, 404: 'No such suppression for this tenant' };
