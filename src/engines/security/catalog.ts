/** What each check says about itself, as results and reports show it (OWASP and CWE links derived from the ids). */
import type { SecurityCheckInfo } from '../../domain/scan.js';
import type { CheckMeta } from './types.js';

const OWASP_2023: Record<string, string> = {
  'API1:2023': '0xa1-broken-object-level-authorization',
  'API2:2023': '0xa2-broken-authentication',
  'API3:2023': '0xa3-broken-object-property-level-authorization',
  'API4:2023': '0xa4-unrestricted-resource-consumption',
  'API5:2023': '0xa5-broken-function-level-authorization',
  'API6:2023': '0xa6-unrestricted-access-to-sensitive-business-flows',
  'API7:2023': '0xa7-server-side-request-forgery',
  'API8:2023': '0xa8-security-misconfiguration',
  'API9:2023': '0xa9-improper-inventory-management',
  'API10:2023': '0xaa-unsafe-consumption-of-apis',
};

export function owaspUrl(id: string): string {
  const page = OWASP_2023[id];
  return page ? `https://owasp.org/API-Security/editions/2023/en/${page}/` : 'https://owasp.org/API-Security/editions/2023/en/0x11-t10/';
}

export function cweUrl(id: string): string {
  const n = /^CWE-(\d+)$/.exec(id)?.[1];
  return n ? `https://cwe.mitre.org/data/definitions/${n}.html` : 'https://cwe.mitre.org/';
}

export function checkInfo(check: CheckMeta): SecurityCheckInfo {
  return {
    id: check.id,
    title: check.title,
    description: check.description ?? '',
    risk: check.risk ?? '',
    remediation: check.remediation ?? '',
    owasp: { id: check.owasp, url: owaspUrl(check.owasp) },
    cwe: { id: check.cwe, url: cweUrl(check.cwe) },
    references: check.references ?? [],
  };
}
