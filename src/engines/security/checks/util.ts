/** Small helpers shared by checks. */
import type { CheckResult } from '../types.js';

export function ok(res: { status: number }): boolean {
  return res.status >= 200 && res.status < 300;
}

export function pass(name: string, extra: Partial<CheckResult> = {}): CheckResult {
  return { status: 'passed', name, severity: 'info', ...extra };
}

export function fail(name: string, severity: CheckResult['severity'], evidence: string, extra: Partial<CheckResult> = {}): CheckResult {
  return { status: 'failed', name, severity, evidence, ...extra };
}

export function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

export const STACK_TRACE =
  /\bat [\w$.<>]+ \(?[^)\s]+:\d+:\d+\)?|Traceback \(most recent call last\)|\bat [\w.$]+\([\w]+\.java:\d+\)|in \/[\w/.-]+\.php on line \d+|System\.[\w.]+Exception:/;
