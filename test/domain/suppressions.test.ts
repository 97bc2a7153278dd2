import { describe, expect, it } from 'vitest';
import { applicableSuppressions, resolveFingerprintPrefix, suppressionActive, targetKey } from '../../src/domain/suppressions.js';

describe('server-side suppression rules', () => {
  const now = new Date('2026-11-27T00:00:00Z');

  it.each([
    [null, true],
    ['2026-11-27T00:00:01.000Z', true],
    ['2026-11-27T00:00:00.000Z', false],
    ['2026-01-01T00:00:00.000Z', false],
  ])('expires_at %s is active at the reference time: %s', (expiresAt, active) => {
    expect(suppressionActive({ expires_at: expiresAt }, now)).toBe(active);
  });

  it.each([
    ['https://API.example.test/', 'https://api.example.test'],
    ['https://api.example.test/v1/', 'https://api.example.test/v1'],
    ['https://api.example.test/v1?x=1', 'https://api.example.test/v1?x=1'],
  ])('target %s is the same target as %s', (a, b) => {
    expect(targetKey(a)).toBe(targetKey(b));
  });

  it('applies unexpired suppressions of every target or of this one only', () => {
    const all = { target: null, expires_at: null };
    const here = { target: 'https://api.a.test/', expires_at: null };
    const elsewhere = { target: 'https://api.b.test', expires_at: null };
    const expired = { target: null, expires_at: '2026-11-26T00:00:00Z' };
    expect(applicableSuppressions([all, here, elsewhere, expired], 'https://api.a.test', now)).toEqual([all, here]);
  });

  it.each([
    ['3f2a9c0d', ['3f2a9c0d11', 'aa'], { fingerprint: '3f2a9c0d11' }],
    ['3F2A9C0D', ['3f2a9c0d11'], { fingerprint: '3f2a9c0d11' }],
    ['3f2a9c0d', ['3f2a9c0d11', '3f2a9c0d22'], { error: 'ambiguous', candidates: ['3f2a9c0d11', '3f2a9c0d22'] }],
    ['3f2a9c0d', ['3f2a9c0d11', '3f2a9c0d11'], { fingerprint: '3f2a9c0d11' }],
    ['ffffffff', ['3f2a9c0d11'], { error: 'unknown', candidates: [] }],
  ])('prefix %s among %j resolves to %j', (prefix, known, expected) => {
    expect(resolveFingerprintPrefix(prefix, known)).toEqual(expected);
  });
});
