import { describe, expect, it } from 'vitest';
import { constantTimeEqual, displayPrefix, generateApiKey, hashApiKey, isWellFormedApiKey } from '../../src/domain/api-keys.js';

describe('API keys', () => {
  it('are svc_pk_ + 43 base62 characters (at least 256 bits) and never repeat', () => {
    const keys = new Set(Array.from({ length: 2000 }, generateApiKey));
    expect(keys.size).toBe(2000);
    for (const key of keys) expect(key).toMatch(/^svc_pk_[0-9A-Za-z]{43}$/);
    expect(43 * Math.log2(62)).toBeGreaterThanOrEqual(256);
  });

  it('use the whole alphabet roughly evenly', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++) for (const ch of generateApiKey().slice(7)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = (2000 * 43) / 62;
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.2);
  });

  it('checks the exact format', () => {
    const key = generateApiKey();
    expect(isWellFormedApiKey(key)).toBe(true);
    for (const bad of [` ${key}`, `${key} `, key.slice(0, -1), `${key}A`, key.replace('svc_pk_', 'svc_sk_'), key.toUpperCase(), '']) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
  });

  it('hashes with SHA-256 and shows only a short prefix', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(hashApiKey(key)).not.toBe(hashApiKey(generateApiKey()));
    expect(displayPrefix(key)).toBe(key.slice(0, 11));
  });

  it('compares secrets correctly regardless of length', () => {
    expect(constantTimeEqual('secret', 'secret')).toBe(true);
    expect(constantTimeEqual('secret', 'secreT')).toBe(false);
    expect(constantTimeEqual('secret', 'secret-longer')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
  });
});
