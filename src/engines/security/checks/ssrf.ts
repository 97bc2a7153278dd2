/** API7:2023 SSRF: URL-like parameters given internal addresses, judged by what comes back. */
import type { Operation } from '../types.js';
import { injectionPoints, type InjectionPoint } from '../synth.js';
import { payloadCheck } from './payload-check.js';

const TARGETS: [string, RegExp][] = [
  ['http://169.254.169.254/latest/meta-data/', /\b(ami-id|instance-id|iam\/|security-credentials|local-ipv4)\b/],
  ['http://metadata.google.internal/computeMetadata/v1/', /\b(project-id|service-accounts|instance\/)\b/],
  ['http://127.0.0.1:22/', /SSH-\d\.\d/],
  ['file:///etc/passwd', /root:[x*]?:0:0:/],
];
const SIGNATURE = new Map(TARGETS);

export function urlPoints(op: Operation): InjectionPoint[] {
  return injectionPoints(op).filter(
    (p) =>
      p.schema?.format === 'uri' ||
      p.schema?.format === 'url' ||
      /(^|_|-)(url|uri|link|href|callback|webhook|endpoint|src|source|target|redirect|image|avatar)s?$/i.test(p.name) ||
      /^https?:\/\//.test(p.value),
  );
}

export const ssrf = payloadCheck({
  id: 'ssrf',
  title: 'Server-side request forgery',
  description:
    'Gives each URL-like parameter or body field (format uri/url, names such as url, callback, webhook, image) internal addresses: the AWS and GCP metadata services, the local SSH port and file:///etc/passwd, and reports when their content comes back.',
  risk: 'The server fetches any address the client names: an attacker reaches internal services and cloud metadata (often temporary cloud credentials), scans the internal network, and reads local files.',
  remediation:
    'Allow-list the schemes (https only), hosts and ports the server may fetch; resolve the host and refuse private, loopback and link-local addresses (check again after redirects, or do not follow them); do not return the fetched content raw; on AWS require IMDSv2.',
  owasp: 'API7:2023',
  cwe: 'CWE-918',
  references: [
    {
      title: 'OWASP Server-Side Request Forgery Prevention Cheat Sheet',
      url: 'https://cheatsheetseries.owasp.org/cheatsheets/Server_Side_Request_Forgery_Prevention_Cheat_Sheet.html',
    },
  ],
  severity: 'critical',
  label: 'SSRF through',
  points: urlPoints,
  nothingToTest: 'no URL-like parameter or body field',
  payloads: () => TARGETS.map(([url]) => url),
  judge: (res, base, payload, ctx) => {
    const re = SIGNATURE.get(String(payload));
    return re && re.test(res.body) && !re.test(base.body)
      ? `Internal resource ${String(payload)} came back: ${re.exec(ctx.shownBody(res))?.[0] ?? 'its signature'}`
      : undefined;
  },
});
