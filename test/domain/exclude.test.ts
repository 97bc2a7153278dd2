import { describe, expect, it } from 'vitest';
import { compileExclude } from '../../src/domain/exclude.js';

describe('options.exclude patterns', () => {
  it('a path without * covers the path and everything below it, not siblings that share a prefix', () => {
    const excluded = compileExclude(['/admin']);
    expect(excluded('/admin')).toBe(true);
    expect(excluded('/admin/users/1')).toBe(true);
    expect(excluded('/administrator')).toBe(false);
    expect(excluded('/public/admin')).toBe(false);
    expect(compileExclude(['/admin/'])('/admin/users')).toBe(true);
  });

  it('* matches any run of characters, slashes included', () => {
    const excluded = compileExclude(['/users/*/orders', '*.pdf']);
    expect(excluded('/users/42/orders')).toBe(true);
    expect(excluded('/users/42/x/orders')).toBe(true);
    expect(excluded('/users/42/orders/7')).toBe(false);
    expect(excluded('/files/report.pdf')).toBe(true);
    expect(excluded('/files/report.pdfx')).toBe(false);
  });

  it('URLs match URL patterns; their path matches path patterns; queries and case are ignored', () => {
    const excluded = compileExclude(['https://shop.example/checkout', '/logout']);
    expect(excluded('https://shop.example/checkout/pay?step=2')).toBe(true);
    expect(excluded('https://other.example/checkout')).toBe(false);
    expect(excluded('http://127.0.0.1:8080/LogOut?next=/')).toBe(true);
    expect(excluded('/logout#top')).toBe(true);
  });

  it('operation keys and path templates are candidates too; blank patterns are ignored', () => {
    const excluded = compileExclude(['GET /users/{id}', '  ', '']);
    expect(excluded('/users/{id}', 'GET /users/{id}')).toBe(true);
    expect(excluded('/users/{id}', 'DELETE /users/{id}')).toBe(false);
    expect(compileExclude(['', ' '])('/anything')).toBe(false);
  });

  it('regular-expression characters in patterns are literal', () => {
    const excluded = compileExclude(['/a.b(c)']);
    expect(excluded('/a.b(c)')).toBe(true);
    expect(excluded('/aXb(c)')).toBe(false);
  });
});
