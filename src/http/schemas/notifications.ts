/** Schemas of the outbound notification settings (GET/PUT /notifications). */
import { Type } from '@sinclair/typebox';
import { EVENT_KINDS } from '../../notifications/events.js';
import { StringEnum } from './common.js';

export const ChannelIn = Type.Object(
  {
    kind: StringEnum(['slack', 'teams', 'webhook'] as const, {
      description: 'slack: Slack-compatible chat webhook; teams: Teams-compatible card (<= 28 KB); webhook: generic JSON POST signed with X-Vigil-Signature',
    }),
    url: Type.String({ format: 'uri', maxLength: 2048, description: 'http(s) URL; in hosted deployments it must resolve to a public address' }),
    events: Type.Optional(Type.Array(StringEnum(EVENT_KINDS), { uniqueItems: true, description: 'Event kinds to send; all when absent' })),
    headers: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$' }), Type.String({ maxLength: 1024 }), {
        additionalProperties: false,
        maxProperties: 20,
        description: 'webhook only: extra request headers (names: letters, digits and -, at most 64; at most 20 headers)',
      }),
    ),
    secret: Type.Optional(Type.String({ minLength: 8, maxLength: 256, description: 'webhook only: HMAC-SHA256 key for X-Vigil-Signature: sha256=<hex>' })),
  },
  { additionalProperties: false },
);
export const SettingsIn = Type.Object(
  { enabled: Type.Optional(Type.Boolean({ default: true })), channels: Type.Array(ChannelIn, { maxItems: 20 }) },
  {
    additionalProperties: false,
    examples: [
      {
        enabled: true,
        channels: [
          { kind: 'slack', url: 'https://hooks.slack.com/services/T000/B000/XXXX', events: ['scan_failed', 'finding_critical'] },
          { kind: 'webhook', url: 'https://ci.example.com/vigil', headers: { Authorization: 'Token abc' }, secret: 'a-long-shared-secret' },
        ],
      },
    ],
  },
);
export const SettingsOut = Type.Object(
  {
    enabled: Type.Boolean(),
    channels: Type.Array(
      Type.Object({
        kind: Type.String(),
        url: Type.String({ description: 'Scheme and host only; the rest is a secret' }),
        events: Type.Union([Type.Array(Type.String()), Type.Null()]),
        headers: Type.Record(Type.String(), Type.String(), { description: 'Header names; values redacted' }),
        has_secret: Type.Boolean(),
      }),
    ),
  },
  {
    examples: [
      {
        enabled: true,
        channels: [{ kind: 'slack', url: 'https://hooks.slack.com/***', events: ['scan_failed', 'finding_critical'], headers: {}, has_secret: false }],
      },
    ],
  },
);
