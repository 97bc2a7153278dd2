/**
 * How many operations a specification holds, counted cheaply enough for the API to refuse an
 * oversized spec at the door (VIGIL_SPEC_MAX_OPERATIONS) and for the worker to refuse it before the
 * slow YAML parse. No heavy imports: the api process loads this module.
 */

export const SPEC_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Default of VIGIL_SPEC_MAX_OPERATIONS. */
export const DEFAULT_SPEC_MAX_OPERATIONS = 2000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Operations of a parsed document: each HTTP method entry of each path item. */
export function countOperations(doc: unknown): number {
  if (!isObject(doc) || !isObject(doc.paths)) return 0;
  let count = 0;
  for (const item of Object.values(doc.paths)) {
    if (isObject(item)) for (const method of SPEC_METHODS) if (item[method]) count += 1;
  }
  return count;
}

const PATHS_LINE = /^(paths|"paths"|'paths')[ \t]*:[ \t]*(#.*)?$/;
const METHOD_KEY = /^[ \t]*(["']?)(get|put|post|delete|options|head|patch|trace)\1[ \t]*:(?:[ \t]|$)/;
/** A path key with nothing after the colon but an anchor or a comment: its item follows as a block. */
const BLOCK_PATH_KEY = /:[ \t]*(&\S+[ \t]*)?(#.*)?$/;

/**
 * Operations of a block-style YAML document, by indentation alone (the `yaml` parser needs seconds for
 * a few megabytes). Undefined when the layout cannot be read that way (flow style, a path item given
 * inline or by alias): the count after parsing decides then.
 */
export function countYamlOperations(text: string): number | undefined {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((line) => PATHS_LINE.test(line));
  if (start < 0) return /^["']?paths["']?[ \t]*:/m.test(text) ? undefined : 0;
  let pathIndent = -1;
  let childIndent = -1;
  let count = 0;
  for (let i = start + 1; i < lines.length; i += 1) {
    const line = lines[i] as string;
    const content = line.trimStart();
    if (content === '' || content.startsWith('#')) continue;
    const indent = line.length - content.length;
    if (indent === 0) break; // the next top-level key, or the end of the document
    if (pathIndent < 0) pathIndent = indent;
    if (indent < pathIndent) return undefined;
    if (indent === pathIndent) {
      if (!BLOCK_PATH_KEY.test(content)) return undefined;
      childIndent = -1;
      continue;
    }
    if (childIndent < 0) childIndent = indent;
    if (indent === childIndent && METHOD_KEY.test(line)) count += 1;
  }
  return count;
}

/** The operation count of a JSON or YAML spec text, or undefined when it cannot be told cheaply (or at all). */
export function estimateOperations(text: string): number | undefined {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (!trimmed.startsWith('{')) return countYamlOperations(trimmed);
  try {
    return countOperations(JSON.parse(trimmed));
  } catch {
    return undefined;
  }
}
