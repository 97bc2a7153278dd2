/**
 * Where an operation is written in an OpenAPI document: the 1-based line of `paths: /x: get:` in a
 * YAML or JSON file, so SARIF results land on the spec line in code scanning.
 *
 * No YAML parser is needed: keys are found by their indentation (block YAML and pretty-printed JSON
 * both nest by indentation). A document on one line (minified JSON, flow YAML) falls back to the
 * text offsets of the same keys in order; an operation that is not found gives the line of its path,
 * else of `paths`, else undefined.
 */

interface KeyLine {
  line: number;
  indent: number;
  key: string;
}

/** A mapping key at the start of a line: `key:`, `"key":`, `'key':`, or YAML's `- key:` is not one. */
const KEY = /^(\s*)(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s"'#{}[\],&*!|>%@`-][^:#]*?|-[^\s:#][^:#]*?))\s*:(?=\s|$|[{["'])/;

function unquoteJson(text: string): string {
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}

function keyLines(text: string): KeyLine[] {
  const out: KeyLine[] = [];
  text.split(/\r\n|\r|\n/).forEach((raw, i) => {
    const m = KEY.exec(raw.replace(/\t/g, '  '));
    if (!m) return;
    const key = m[2] !== undefined ? unquoteJson(m[2]) : m[3] !== undefined ? m[3].replace(/''/g, "'") : m[4]!.trim();
    out.push({ line: i + 1, indent: m[1]!.length, key });
  });
  return out;
}

/** The key lines nested under `parent` (deeper indentation, up to the next key at its level or above). */
function children(keys: KeyLine[], parentIndex: number): { entry: KeyLine; index: number }[] {
  const parent = keys[parentIndex]!;
  const out: { entry: KeyLine; index: number }[] = [];
  let depth: number | undefined;
  for (let i = parentIndex + 1; i < keys.length; i++) {
    const k = keys[i]!;
    if (k.indent <= parent.indent) break;
    depth ??= k.indent;
    if (k.indent === depth) out.push({ entry: k, index: i });
  }
  return out;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** One-line documents: the keys found one after the other in the text. */
function byOffset(text: string, path: string, method: string): number | undefined {
  const paths = text.search(/["']?paths["']?\s*:/);
  if (paths < 0) return undefined;
  const quoted = [JSON.stringify(path), `'${path}'`];
  let at = -1;
  for (const q of quoted) {
    const i = text.indexOf(`${q}`, paths);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  if (at < 0) return lineAt(text, paths);
  const rest = text.slice(at);
  const m = new RegExp(`["']?${method}["']?\\s*:`, 'i').exec(rest);
  return lineAt(text, m ? at + m.index : at);
}

/**
 * The line of the operation "METHOD /path/template" in the spec text (1-based), or of its path,
 * or of `paths`; undefined when the text has no `paths`.
 */
export function operationLine(specText: string, endpoint: string): number | undefined {
  const m = /^\s*([A-Za-z]+)\s+(\S+)/.exec(endpoint);
  if (!m) return undefined;
  const method = m[1]!.toLowerCase();
  const path = m[2]!;
  const keys = keyLines(specText);
  const pathsIndex = keys.findIndex((k) => k.key === 'paths' && k.indent === Math.min(...keys.map((x) => x.indent)));
  if (pathsIndex < 0) return byOffset(specText, path, method);
  const pathEntry = children(keys, pathsIndex).find((c) => c.entry.key === path);
  if (!pathEntry) {
    // Every key on the line of `paths` (one-line JSON): search the text instead.
    return keys.length <= 2 ? byOffset(specText, path, method) : keys[pathsIndex]!.line;
  }
  const op = children(keys, pathEntry.index).find((c) => c.entry.key.toLowerCase() === method);
  return (op ?? pathEntry).entry.line;
}

/** The line of the top-level `paths` key (or 1), for findings of the whole target. */
export function pathsLine(specText: string): number {
  const keys = keyLines(specText);
  const top = Math.min(...keys.map((x) => x.indent));
  return keys.find((k) => k.key === 'paths' && k.indent === top)?.line ?? 1;
}
