/**
 * API4:2023 Unrestricted resource consumption: a page size 1,000 times the default accepted without
 * a visible clamp (judged by the answer; timing is supporting evidence), and, by differential timing
 * against a median baseline, oversized page sizes and request bodies whose cost grows with the size
 * and backtracking (ReDoS) inputs in validated string fields (emails, `pattern` fields).
 * Timing-based: the engine runs it alone against the target; every timing finding rests on two measurements.
 */
import { bulkWrite } from '../bulk-writes.js';
import type { CheckContext, CheckResult, Operation, OperationCheck, RequestSpec, TargetResponse } from '../types.js';
import { describePoint, getAt, injectionPoints, pointKeys, sampleBody, type InjectionPoint } from '../synth.js';
import { bodyObject, pointValue, probeRequest, stringPoints } from './payload-check.js';
import { costGrows, medianBaseline } from './timing.js';
import { fail, pass } from './util.js';

/**
 * Extra server time per KiB of body that counts as work the body causes: 0.2 ms/KiB is 1 s for 5 MiB,
 * far above parsing JSON (about 0.01 ms/KiB, ten times that on a loaded machine).
 */
const BODY_WORK_MS_PER_KIB = 0.2;

const SIZE_NAME = /^(limit|size|per_?page|page_?size|count|max|max_?results|top|take|first)$/i;

const sizePoints = (op: Operation) => injectionPoints(op).filter((p) => p.kind === 'query' && SIZE_NAME.test(p.name));

/** String fields whose value the server validates with a regular expression: emails and `pattern` fields. */
export function validatedPoints(op: Operation): InjectionPoint[] {
  return stringPoints(op).filter(
    (p) => p.schema?.format === 'email' || typeof p.schema?.pattern === 'string' || (!p.schema?.format && /e-?mail/i.test(p.name)),
  );
}

/** Inputs of length ~n that make nested or overlapping quantifiers backtrack: a long matching run, then a mismatch. */
export function backtrackingInputs(point: InjectionPoint, n: number): string[] {
  if (point.schema?.format === 'email' || /e-?mail/i.test(point.name)) {
    const run = 'a'.repeat(n);
    // Local part (^(\w+\.?)*@), domain labels ((\w+-?)+\.), top-level domain (([a-z]{2,4})+$).
    return [`${run}!`, `a@${run}!`, `a@a.${run}!`];
  }
  const c = /^[\w-]/.test(point.value) ? point.value[0] : 'a';
  return [`${c.repeat(n)}!`, `${point.value}${c.repeat(n)}!`];
}

const BULK_WRITE = 'a write to a whole collection (no id in the path): a padded body would rewrite every record';

/** Object bodies (JSON or form) that can carry a padded field; never a bulk write. */
function paddable(op: Operation, ctx: Pick<CheckContext, 'model'>): boolean {
  if (bulkWrite(ctx, op)) return false;
  if (!op.body || !/json|x-www-form-urlencoded/i.test(op.body.contentType)) return false;
  const b = sampleBody(op);
  return !!b && typeof b === 'object' && !Array.isArray(b);
}

const PAD_MARK = 'vigil-pad-3f9c1e';

/** A string field without validation the probe could set off: no pattern, format or enum, not an email by name. */
export function freeText(p: InjectionPoint): boolean {
  const t = p.schema?.type;
  const isString = t === undefined || t === 'string' || (Array.isArray(t) && t.includes('string'));
  return isString && typeof p.schema?.pattern !== 'string' && !p.schema?.format && !Array.isArray(p.schema?.enum) && !/e-?mail/i.test(p.name);
}
/** One padding buffer for the process, grown to the largest probe: probes do not allocate their size again. */
let padBuffer: Buffer | undefined;
function padding(n: number): Buffer {
  if (!padBuffer || padBuffer.length < n) padBuffer = Buffer.alloc(n, 'x');
  return padBuffer.subarray(0, n);
}

/**
 * The operation's request with its body grown to about `bytes`: the first free-text string field
 * padded (no `pattern`, `format` or `enum`, not named like an email), else an extra `vigil_padding` property. Sent as [head, shared padding, tail] with its Content-Length.
 */
export function paddedRequest(ctx: Pick<CheckContext, 'request'>, op: Operation, bytes: number): RequestSpec {
  // Only a free-text field is padded: a validated one (pattern, format, enum) would test the validator with megabytes.
  const point = injectionPoints(op).find((p) => p.kind === 'body' && freeText(p));
  const fields = bodyObject(ctx.request(op)) ?? (sampleBody(op) as Record<string, unknown>);
  const req = point
    ? probeRequest(ctx, op, point, `${String(getAt(fields, pointKeys(point)) ?? point.value)}${PAD_MARK}`)
    : ctx.request(op, { body: { ...fields, vigil_padding: PAD_MARK } });
  const text = typeof req.body === 'string' ? req.body : '';
  const at = text.indexOf(PAD_MARK);
  if (at < 0) return req;
  const head = Buffer.from(text.slice(0, at));
  const tail = Buffer.from(text.slice(at + PAD_MARK.length));
  const pad = padding(Math.max(0, bytes - head.length - tail.length));
  return { ...req, body: [head, pad, tail], headers: { ...req.headers, 'content-length': String(head.length + pad.length + tail.length) } };
}

/** Names an answer echoes its page size under (besides the parameter's own). */
const ECHO_NAME = /^(limit|size|per_?page|page_?size|max_?results|top|take|first)$/i;
/** Names an answer gives the number of matching items under (DRF's `count`, `total`, `articlesCount`). */
const TOTAL_NAME = /^(count|total|total_?(count|items|results|elements|size)|[a-z]+_?count)$/i;
/** Objects a paginated answer keeps its page information in. */
const META_NAME = /^(meta|pagination|paging|page|page_?info|links|_meta)$/i;

/** Numbers under names matching `re`, at the top of the answer or in its page-information object. */
function pageNumbers(body: unknown, re: (k: string) => boolean): number[] {
  const out: number[] = [];
  const look = (node: unknown, depth: number) => {
    if (!node || typeof node !== 'object' || Array.isArray(node) || depth > 1) return;
    for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
      if (typeof v === 'number' && re(k)) out.push(v);
      else if (typeof v === 'string' && /^\d+$/.test(v) && re(k)) out.push(Number(v));
      else if (META_NAME.test(k)) look(v, depth + 1);
    }
  };
  look(body, 0);
  return out;
}

/** The number of items a list answer holds: the answer itself, or its largest array (`items`, `results`, `data`). */
export function itemCount(body: unknown): number | undefined {
  if (Array.isArray(body)) return body.length;
  if (!body || typeof body !== 'object') return undefined;
  let best: number | undefined;
  const look = (node: Record<string, unknown>, depth: number) => {
    for (const v of Object.values(node)) {
      if (Array.isArray(v)) best = Math.max(best ?? 0, v.length);
      else if (v && typeof v === 'object' && depth < 1) look(v as Record<string, unknown>, depth + 1);
    }
  };
  look(body as Record<string, unknown>, 0);
  return best;
}

/** The page size a probe asks for: 1,000 times the default (the schema's default or example, else 20), past any declared maximum. */
export function hugePageSize(point: InjectionPoint): number {
  const s = point.schema ?? {};
  const num = (v: unknown) => (typeof v === 'number' && v > 0 ? v : typeof v === 'string' && /^\d+$/.test(v) && Number(v) > 0 ? Number(v) : undefined);
  // A value of 1 is what synthesis makes up for a bare integer, not a default.
  const given = num(point.value);
  const ref = num(s.default) ?? num(s.example) ?? (given !== undefined && given > 1 ? given : undefined) ?? 20;
  const max = num(s.maximum);
  return Math.max(1000 * ref, max !== undefined ? max + 1 : 0);
}

/**
 * Page-size abuse judged by the answer, not the clock: a page size 1,000 times the default answered
 * 2xx without a visible clamp (a limit echoed below it, fewer items than a total the answer gives, the
 * default page again) is accepted. Medium when the answer shows it was honoured (more items than the
 * default request got, or the huge size echoed back); low when it was accepted and nothing in the answer
 * shows a clamp (a small data set hides one). Undefined when refused or visibly clamped.
 */
async function pageSizeAccepted(
  ctx: CheckContext,
  op: Operation,
  point: InjectionPoint,
): Promise<{ res: TargetResponse; severity: 'medium' | 'low'; proof: string } | undefined> {
  const size = hugePageSize(point);
  const res = await ctx.send(probeRequest(ctx, op, point, size));
  if (res.status < 200 || res.status >= 300) return undefined;
  const body = ctx.json(res);
  const own = normName(point.name);
  const echoed = pageNumbers(body, (k) => normName(k) === own || ECHO_NAME.test(k));
  if (echoed.some((n) => n < size)) return undefined;
  const items = itemCount(body);
  const totals = pageNumbers(body, (k) => normName(k) !== own && TOTAL_NAME.test(k));
  if (items !== undefined && totals.some((t) => t > items && items < size)) return undefined;
  // A fresh default request (the baseline may predate what the scan created since).
  const base = await ctx.send(ctx.request(op));
  const baseItems = base.status >= 200 && base.status < 300 ? itemCount(ctx.json(base)) : undefined;
  const ref = size / 1000;
  if (items !== undefined && baseItems !== undefined && items === baseItems && baseItems === ref) return undefined;
  const honoured = echoed.includes(size) || (items !== undefined && baseItems !== undefined && items > baseItems);
  const counted = items === undefined ? '' : ` with ${items} items${baseItems === undefined ? '' : ` (the default request: ${baseItems})`}`;
  const proof = `${point.name}=${size} (1,000 times the default) answered HTTP ${res.status}${counted}; ${echoed.includes(size) ? `the answer echoes ${point.name} ${size}` : 'no smaller limit echoed'}, no 4xx and no clamp visible`;
  return { res, severity: honoured ? 'medium' : 'low', proof };
}

const normName = (k: string) => k.toLowerCase().replace(/[^a-z0-9]/g, '');

async function backtracking(ctx: CheckContext, op: Operation, baseMs: number, point: InjectionPoint): Promise<CheckResult> {
  const name = `Backtracking (ReDoS) input slows ${describePoint(point)}`;
  const [short, long] = ctx.tuning.redosLengths;
  const t = ctx.tuning.redosThresholdMs;
  // A probe that times out is as slow as its timeout; bounded so a real ReDoS cannot stall the scan.
  const send = (v: string) => ctx.send({ ...probeRequest(ctx, op, point, v), timeoutMs: baseMs + t * 5 });
  const slow = (r: TargetResponse) => (r.status > 0 || r.error === 'timeout') && r.elapsedMs > baseMs + t;
  const shapes = backtrackingInputs(point, long);
  for (let i = 0; i < shapes.length; i++) {
    const r2 = await send(shapes[i]);
    if (!slow(r2)) continue;
    // Confirm: the shorter input of the same shape is fast, and the long one is slow again. A server
    // slow on any invalid input is slow on the short one too and is not reported.
    const r1 = await send(backtrackingInputs(point, short)[i]);
    const again = await send(shapes[i]);
    const longMs = Math.min(r2.elapsedMs, again.elapsedMs);
    if (slow(again) && longMs > r1.elapsedMs + t / 2) {
      return fail(
        name,
        'medium',
        ctx.evidence(
          again,
          `Baseline ${Math.round(baseMs)} ms; a ${short}-character run took ${Math.round(r1.elapsedMs)} ms, a ${long}-character run ${Math.round(r2.elapsedMs)} and ${Math.round(again.elapsedMs)} ms${again.error ? ` (${again.error})` : ''}`,
        ),
        { parameter: point.name, cwe: 'CWE-1333', invented: false },
      );
    }
  }
  return pass(name, { parameter: point.name, cwe: 'CWE-1333' });
}

export const resourceConsumption: OperationCheck = {
  id: 'resource-consumption',
  title: 'Unrestricted resource consumption',
  description:
    'Asks for a page size 1,000 times the default (limit, per_page...) and reports it accepted when the answer is 2xx with no clamp visible (no smaller limit echoed, no fewer items than a total it gives); then asks for 100000 and 200000 and times them as supporting evidence. Sends request bodies of half and full probe size, and sends backtracking inputs to validated fields (emails, pattern fields); bodies and backtracking inputs count only when the cost rises with the size twice in a row, or a long input is slow twice while a shorter one is fast.',
  risk: 'One cheap request makes the server do unbounded work: an attacker exhausts CPU, memory or database time with a handful of requests (denial of service) or runs up the operator’s bill.',
  remediation:
    'Enforce a maximum page size (reject or clamp limit/per_page), a request body size limit at the proxy and in the framework, and validate length before any regular expression; use linear-time regular expressions (no nested quantifiers, or an RE2-style engine) and add timeouts and rate limits.',
  owasp: 'API4:2023',
  cwe: 'CWE-770',
  references: [
    { title: 'OWASP Denial of Service Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/Denial_of_Service_Cheat_Sheet.html' },
    {
      title: 'OWASP: Regular expression Denial of Service (ReDoS)',
      url: 'https://owasp.org/www-community/attacks/Regular_expression_Denial_of_Service_-_ReDoS',
    },
    { title: 'OWASP REST Security Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/REST_Security_Cheat_Sheet.html' },
  ],
  timing: true,
  scope: 'operation',
  applies: (op, ctx) =>
    sizePoints(op).length > 0 ||
    validatedPoints(op).length > 0 ||
    paddable(op, ctx) ||
    (bulkWrite(ctx, op) ? BULK_WRITE : 'no page-size parameter, validated string field or object body'),
  async run(ctx, op) {
    const out: CheckResult[] = [];
    const request = ctx.request(op);
    const base = (await medianBaseline(ctx, request)).ms;
    // Backtracking probes first: short inputs, bounded by a timeout. A size probe that sets off a
    // slow validator afterwards cannot hide the flaw these find.
    for (const point of validatedPoints(op)) out.push(await backtracking(ctx, op, base, { ...point, value: pointValue(request, op, point) }));
    for (const point of sizePoints(op)) {
      const name = `Oversized page size accepted in ${describePoint(point)}`;
      // The answer first: a huge page size accepted without a clamp is the finding; timing supports it.
      const accepted = await pageSizeAccepted(ctx, op, point);
      // Differential: the cost must rise with the requested size, not just be slow once.
      const grew = await costGrows(
        base,
        () => ctx.send(probeRequest(ctx, op, point, 100000)),
        () => ctx.send(probeRequest(ctx, op, point, 200000)),
      );
      const timed =
        grew &&
        `Baseline ${Math.round(base)} ms; ${point.name}=100000 took ${Math.round(grew.small.elapsedMs)} ms, ${point.name}=200000 took ${Math.round(grew.large.elapsedMs)} ms`;
      if (accepted) {
        const severity = grew ? 'medium' : accepted.severity;
        out.push(
          fail(name, severity, ctx.evidence(accepted.res, timed ? `${accepted.proof}. ${timed}` : accepted.proof), { parameter: point.name, invented: false }),
        );
      } else if (grew) {
        out.push(fail(name, 'medium', ctx.evidence(grew.large, timed!), { parameter: point.name, invented: false }));
      } else out.push(pass(name, { parameter: point.name }));
    }
    if (paddable(op, ctx)) {
      const name = 'Oversized request body accepted';
      const full = ctx.tuning.oversizeBodyBytes;
      const half = Math.floor(full / 2);
      // Judged on the server's time after the upload: sending and parsing megabytes takes longer
      // on any server (and on a loaded machine, much longer) without being work the body causes.
      const serverMs = (r: TargetResponse) => r.afterUploadMs ?? r.elapsedMs;
      const grew = await costGrows(
        base,
        () => ctx.send(paddedRequest(ctx, op, half)),
        () => ctx.send(paddedRequest(ctx, op, full)),
        { timeOf: serverMs, minExtraMs: Math.max(250, (half / 1024) * BODY_WORK_MS_PER_KIB) },
      );
      const kib = (n: number) => `${Math.round(n / 1024)} KiB`;
      out.push(
        grew
          ? fail(
              name,
              'medium',
              ctx.evidence(
                grew.large,
                `Baseline ${Math.round(base)} ms; after its upload, a ${kib(half)} body was answered in ${Math.round(serverMs(grew.small))} ms, a ${kib(full)} body in ${Math.round(serverMs(grew.large))} ms (HTTP ${grew.large.status})`,
              ),
              { invented: false },
            )
          : pass(name),
      );
    }
    return out;
  },
};
