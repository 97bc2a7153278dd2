/** API7:2023 SSRF: URL-typed parameters given internal addresses, judged by response content. */
import type { CheckDefinition, CheckResult } from '../types.js';
import { buildRequest, describePoint, inject, injectionPoints, type InjectionPoint } from '../synth.js';
import { fail, pass } from './util.js';

const TARGETS: [string, RegExp][] = [
  ['http://169.254.169.254/latest/meta-data/', /\b(ami-id|instance-id|iam\/|security-credentials|local-ipv4)\b/],
  ['http://metadata.google.internal/computeMetadata/v1/', /\b(project-id|service-accounts|instance\/)\b/],
  ['http://127.0.0.1:22/', /SSH-\d\.\d/],
  ['file:///etc/passwd', /root:[x*]?:0:0:/],
];

export function urlPoints(op: { params: any[] } & Parameters<typeof injectionPoints>[0]): InjectionPoint[] {
  return injectionPoints(op).filter(
    (p) => p.schema?.format === 'uri' || p.schema?.format === 'url' || /(^|_|-)(url|uri|link|href|callback|webhook|endpoint|src|source|target|redirect|image|avatar)s?$/i.test(p.name) || /^https?:\/\//.test(p.value),
  );
}

export const ssrf: CheckDefinition = {
  id: 'ssrf',
  title: 'Server-side request forgery',
  owasp: 'API7:2023',
  cwe: 'CWE-918',
  scope: 'operation',
  applies: (op) => urlPoints(op).length > 0,
  async run(scan, op) {
    const baseline = await scan.send(buildRequest(op!));
    const out: CheckResult[] = [];
    for (const point of urlPoints(op!)) {
      const name = `SSRF through ${describePoint(point)}`;
      let found: CheckResult | undefined;
      for (const [url, re] of TARGETS) {
        const res = await scan.send(buildRequest(op!, inject(op!, point, url)));
        if (res.status && re.test(res.body) && !re.test(baseline.body)) {
          found = fail(name, 'critical', scan.evidence(res, `Internal resource ${url} came back: ${re.exec(scan.shownBody(res))?.[0] ?? 'its signature'}`), { parameter: point.name });
          break;
        }
      }
      out.push(found ?? pass(name, { parameter: point.name }));
    }
    return out;
  },
};
