import { describe, expect, it } from 'vitest';
import { findingFingerprint, operationKey } from '../../src/domain/fingerprint.js';
import type { Task } from '../../src/domain/scan.js';

const task = (over: Partial<Task> = {}): Task => ({
  task_id: 't-1',
  name: 'BOLA on GET /users/{id}',
  status: 'failed',
  severity: 'critical',
  check: 'bola',
  endpoint: 'GET /users/{id}',
  parameter: 'id',
  evidence: 'GET /users/42 -> 200',
  ...over,
});

describe('findingFingerprint', () => {
  it('is stable across runs: task ids, evidence, severities and numbers in the title do not change it', () => {
    const a = findingFingerprint(task());
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(findingFingerprint(task({ task_id: 'other', evidence: 'GET /users/7 -> 200', severity: 'high', status: 'passed' }))).toBe(a);
    const slow = task({ check: 'resource-consumption', name: 'Slow after 18 characters' });
    expect(findingFingerprint({ ...slow, name: 'Slow after 24  characters' })).toBe(findingFingerprint(slow));
  });

  it("keeps one check's distinct weaknesses on one operation apart", () => {
    const jwt = (name: string) => findingFingerprint(task({ check: 'jwt', endpoint: 'GET /jwt/me', parameter: undefined, name }));
    expect(jwt('JWT with alg none accepted')).not.toBe(jwt('Expired JWT accepted'));
  });

  it('normalises the operation: method case, origin, query and trailing slash', () => {
    const a = findingFingerprint(task());
    expect(findingFingerprint(task({ endpoint: 'get /users/{id}/' }))).toBe(a);
    expect(findingFingerprint(task({ endpoint: 'GET https://api.example.com/users/{id}?page=2' }))).toBe(a);
  });

  it('differs by check, method, path template and parameter', () => {
    const a = findingFingerprint(task());
    const others = [
      task({ check: 'bfla' }),
      task({ endpoint: 'DELETE /users/{id}' }),
      task({ endpoint: 'GET /accounts/{id}' }),
      task({ parameter: 'name' }),
      task({ parameter: undefined }),
    ].map(findingFingerprint);
    expect(new Set([a, ...others]).size).toBe(6);
  });

  it('a finding of the whole target keeps its fingerprint when the operations it lists change', () => {
    const a = findingFingerprint(task({ check: 'headers', endpoint: 'GET /a', endpoints: ['GET /a', 'GET /b'], parameter: undefined }));
    expect(findingFingerprint(task({ check: 'headers', endpoint: 'GET /0', endpoints: ['GET /0', 'GET /a', 'GET /b'], parameter: undefined }))).toBe(a);
    expect(findingFingerprint(task({ check: 'headers', endpoint: 'GET /a', parameter: undefined }))).not.toBe(a);
  });

  it('identifies a task without a check by its name', () => {
    const v: Task = { task_id: 'x', name: 'Visual regression: /cart', status: 'failed' };
    const w: Task = { ...v, task_id: 'y' };
    expect(findingFingerprint(v)).toBe(findingFingerprint(w));
    expect(findingFingerprint(v)).not.toBe(findingFingerprint({ ...v, name: 'Visual regression: /' }));
  });

  it('operationKey is METHOD /path/template', () => {
    expect(operationKey('post https://x.test/a/b/?q')).toBe('POST /a/b');
    expect(operationKey(undefined)).toBe('');
  });
});
