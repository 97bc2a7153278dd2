/**
 * Compliance frameworks as controls with the OWASP API Security Top 10 2023 categories that
 * evidence them. OWASP is exact (every security check carries its API<n>:2023 id); PCI DSS 4.0
 * requirement 6 and SOC 2 CC mappings are best effort: a dynamic API scan evidences a part of
 * those controls, never the whole control (documented in docs/notifications.md#compliance).
 */
export const FRAMEWORKS = ['owasp-api-2023', 'pci-dss-4', 'soc2'] as const;
export type Framework = (typeof FRAMEWORKS)[number];

export interface Control {
  id: string;
  title: string;
  /** OWASP API 2023 ids whose checks evidence this control; '*' = every security check. */
  owasp: string[];
}

const OWASP: Control[] = [
  { id: 'API1:2023', title: 'Broken Object Level Authorization', owasp: ['API1:2023'] },
  { id: 'API2:2023', title: 'Broken Authentication', owasp: ['API2:2023'] },
  { id: 'API3:2023', title: 'Broken Object Property Level Authorization', owasp: ['API3:2023'] },
  { id: 'API4:2023', title: 'Unrestricted Resource Consumption', owasp: ['API4:2023'] },
  { id: 'API5:2023', title: 'Broken Function Level Authorization', owasp: ['API5:2023'] },
  { id: 'API6:2023', title: 'Unrestricted Access to Sensitive Business Flows', owasp: ['API6:2023'] },
  { id: 'API7:2023', title: 'Server Side Request Forgery', owasp: ['API7:2023'] },
  { id: 'API8:2023', title: 'Security Misconfiguration', owasp: ['API8:2023'] },
  { id: 'API9:2023', title: 'Improper Inventory Management', owasp: ['API9:2023'] },
  { id: 'API10:2023', title: 'Unsafe Consumption of APIs', owasp: ['API10:2023'] },
];

const PCI: Control[] = [
  {
    id: '6.2.4',
    title: 'Software engineering techniques prevent or mitigate common software attacks (injection, access control, authentication, SSRF)',
    owasp: ['API1:2023', 'API2:2023', 'API3:2023', 'API5:2023', 'API7:2023', 'API10:2023'],
  },
  { id: '6.3.1', title: 'Security vulnerabilities are identified and managed', owasp: ['*'] },
  { id: '6.4.1', title: 'Public-facing web applications are protected against attacks', owasp: ['API4:2023', 'API6:2023', 'API8:2023'] },
  { id: '6.3.2', title: 'An inventory of bespoke and custom software (and its APIs) is maintained', owasp: ['API9:2023'] },
];

const SOC2: Control[] = [
  { id: 'CC6.1', title: 'Logical access security over protected information assets', owasp: ['API1:2023', 'API2:2023', 'API3:2023', 'API5:2023'] },
  { id: 'CC6.6', title: 'Protection against threats from sources outside system boundaries', owasp: ['API4:2023', 'API6:2023', 'API7:2023', 'API10:2023'] },
  { id: 'CC7.1', title: 'Detection of configuration changes and newly discovered vulnerabilities', owasp: ['API8:2023', 'API9:2023'] },
  { id: 'CC8.1', title: 'Changes are tested before implementation (every security check)', owasp: ['*'] },
];

export const FRAMEWORK_INFO: Record<Framework, { name: string; controls: Control[] }> = {
  'owasp-api-2023': { name: 'OWASP API Security Top 10 (2023)', controls: OWASP },
  'pci-dss-4': { name: 'PCI DSS v4.0 Requirement 6 (best-effort mapping)', controls: PCI },
  soc2: { name: 'SOC 2 Common Criteria (best-effort mapping)', controls: SOC2 },
};
