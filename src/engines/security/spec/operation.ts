/** What building an Operation takes in either version: media choice, examples, parameters, security. */
import type { Operation, ParamLocation, ParamSpec } from '../types.js';
import type { Example, HttpMethod, MediaType, OperationBase, SecurityRequirement } from './document.js';

/** Server part of the model: base path (no trailing slash yet) and declared schemes. */
export interface ServerInfo {
  serverPath: string;
  serverSchemes: string[];
}

const MEDIA_PREFERENCE: ((type: string) => boolean)[] = [
  (t) => /^application\/json/i.test(t),
  (t) => /\+json/i.test(t),
  (t) => /x-www-form-urlencoded/i.test(t),
  (t) => /multipart\/form-data/i.test(t),
  (t) => /^text\//i.test(t),
  () => true,
];

/** The media type the scan sends or reads: JSON first, then form, multipart, text, anything. */
export function pickMedia(content: ReadonlyMap<string, MediaType>): [string, MediaType] | undefined {
  if (content.size === 0) return undefined;
  const types = [...content.keys()];
  for (const preferred of MEDIA_PREFERENCE) {
    const type = types.find(preferred);
    if (type) return [type, content.get(type) as MediaType];
  }
  return undefined;
}

export function firstExample(media: { example?: unknown; examples?: ReadonlyMap<string, Example> }): unknown {
  if (media.example !== undefined) return media.example;
  for (const example of media.examples?.values() ?? []) {
    if (example.value !== undefined) return example.value;
  }
  return undefined;
}

/** Path-item parameters overridden by the operation's own of the same location and name, in first-seen order. */
export function mergeParameters<P extends { name: string; in: string }>(shared: P[], own: P[]): P[] {
  const merged = new Map<string, P>();
  for (const p of shared) merged.set(`${p.in}:${p.name}`, p);
  for (const p of own) merged.set(`${p.in}:${p.name}`, p);
  return [...merged.values()];
}

const PARAM_LOCATIONS: readonly string[] = ['path', 'query', 'header', 'cookie'] satisfies ParamLocation[];

export function isParamLocation(location: string): location is ParamLocation {
  return PARAM_LOCATIONS.includes(location);
}

/** Path parameters the spec forgot to declare still need a value. */
export function addUndeclaredPathParams(path: string, params: ParamSpec[]): void {
  for (const m of path.matchAll(/\{([^}]+)\}/g)) {
    if (!params.some((p) => p.in === 'path' && p.name === m[1])) {
      params.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
    }
  }
}

/** The Operation from its version-specific parts and the security that applies to it. */
export function assembleOperation(
  method: HttpMethod,
  path: string,
  op: OperationBase,
  globalSecurity: SecurityRequirement[],
  parts: Pick<Operation, 'params' | 'body' | 'responses' | 'links'>,
): Operation {
  const security = op.security ?? globalSecurity;
  const upper = method.toUpperCase();
  return {
    key: `${upper} ${path}`,
    method: upper,
    path,
    operationId: op.operationId,
    summary: op.summary,
    tags: op.tags,
    params: parts.params,
    body: parts.body,
    responses: parts.responses,
    // An empty requirement among the alternatives makes credentials optional.
    secured: security.length > 0 && !security.some((requirement) => requirement.size === 0),
    publicByDesign: op.security !== undefined && op.security.length === 0,
    links: parts.links,
    extensions: op.extensions,
  };
}
