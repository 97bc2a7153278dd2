/** API3:2023 Mass assignment: undeclared privileged properties accepted and reflected or persisted. */
import type { CheckDefinition } from '../types.js';
import { buildRequest, sampleBody } from '../synth.js';
import { fail, ok, parseJson, pass } from './util.js';

const PRIVILEGED: Record<string, unknown> = { is_admin: true, isAdmin: true, admin: true, role: 'admin', roles: ['admin'], permissions: ['*'], verified: true };

function declared(schema: any): Set<string> {
  const s = new Set<string>();
  const walk = (x: any) => {
    if (!x || typeof x !== 'object') return;
    for (const k of Object.keys(x.properties ?? {})) s.add(k);
    for (const sub of [...(x.allOf ?? []), ...(x.oneOf ?? []), ...(x.anyOf ?? [])]) walk(sub);
  };
  walk(schema);
  return s;
}

function find(v: unknown, key: string, want: unknown): boolean {
  if (!v || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some((x) => find(x, key, want));
  for (const [k, x] of Object.entries(v)) {
    if (k === key && JSON.stringify(x) === JSON.stringify(want)) return true;
    if (find(x, key, want)) return true;
  }
  return false;
}

export const massAssignment: CheckDefinition = {
  id: 'mass-assignment',
  title: 'Mass assignment',
  owasp: 'API3:2023',
  cwe: 'CWE-915',
  scope: 'operation',
  applies: (op) => ['POST', 'PUT', 'PATCH'].includes(op.method) && !!op.body && /json/i.test(op.body.contentType),
  async run(scan, op) {
    const body = sampleBody(op!);
    if (!body || typeof body !== 'object' || Array.isArray(body)) return [];
    const known = declared(op!.body!.schema);
    const extra = Object.fromEntries(Object.entries(PRIVILEGED).filter(([k]) => !known.has(k)));
    const names = Object.keys(extra);
    if (!names.length) return [];
    const name = 'Undeclared privileged properties accepted';
    const res = await scan.send(buildRequest(op!, { body: { ...body, ...extra } }));
    if (!ok(res)) return [pass(name)];
    const json = parseJson(res.body);
    const reflected = names.filter((k) => find(json, k, extra[k]));
    if (reflected.length) return [fail(name, 'high', scan.evidence(res, `The response carries the injected ${reflected.map((k) => `${k}=${JSON.stringify(extra[k])}`).join(', ')}`), { parameter: reflected.join(',') })];
    // Persisted: follow a Location header or a GET on the same path with the returned id.
    const loc = res.headers['location'];
    const id = (json as any)?.id;
    const readPath = loc ?? (id !== undefined ? `${buildRequest(op!).path.replace(/\/+$/, '')}/${encodeURIComponent(String(id))}` : undefined);
    if (readPath) {
      const back = await scan.send({ method: 'GET', path: readPath, query: [], headers: { accept: 'application/json' } });
      const persisted = names.filter((k) => ok(back) && find(parseJson(back.body), k, extra[k]));
      if (persisted.length) return [fail(name, 'high', scan.evidence(back, `Read back after the write: ${persisted.join(', ')} persisted`), { parameter: persisted.join(',') })];
    }
    return [pass(name)];
  },
};
