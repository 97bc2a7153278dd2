/**
 * Bounds on the shape of a JSON request body, checked on the raw text in one linear pass before it is
 * parsed or validated. Parsing and schema validation cost grows with the number of keys and values (an
 * object with 50,000 unknown keys gives 50,000 validation errors), so a body within the byte limit could
 * still hold a process's event loop for seconds. No request Vigil accepts comes near these numbers: the
 * largest (a scan request) has a few dozen keys, and specifications travel as one base64 string.
 */
export const JSON_BOUNDS = {
  /** Members of one object. */
  keysPerObject: 256,
  /** Object members and array elements in the whole body. */
  totalValues: 10_000,
  /** Nesting of objects and arrays. */
  depth: 32,
} as const;

export type JsonBounds = { keysPerObject: number; totalValues: number; depth: number };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/**
 * The first bound `text` exceeds, as a sentence for the client, or undefined when it is within all of
 * them. Not a validator: malformed JSON within the bounds is left to the parser, which reports it.
 * Keys are counted by their colons and array elements by their commas (plus one for a non-empty array),
 * outside strings.
 */
export function exceededJsonBound(text: string, bounds: JsonBounds = JSON_BOUNDS): string | undefined {
  // One entry per open container: the member count of an object; for an array -1 while empty, -2 after.
  const counts: number[] = [];
  let total = 0;
  const length = text.length;
  const tooMany = `JSON body has more than ${bounds.totalValues} keys and array elements`;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    const top = counts.length - 1;
    if (top >= 0 && counts[top] === -1 && c > 0x20 && c !== CLOSE_ARRAY) {
      counts[top] = -2; // the first element of a non-empty array
      if (++total > bounds.totalValues) return tooMany;
    }
    if (c === QUOTE) {
      // Jump to the closing quote: a quote preceded by an odd number of backslashes is escaped.
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end === -1) return undefined; // unterminated string: the parser says so
        let slashes = 0;
        for (let j = end - 1; j > i && text.charCodeAt(j) === BACKSLASH; j--) slashes++;
        if (slashes % 2 === 0) break;
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (counts.length >= bounds.depth) return `JSON body is nested deeper than ${bounds.depth} levels`;
      counts.push(c === OPEN_OBJECT ? 0 : -1);
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      counts.pop();
    } else if (top < 0) {
      continue;
    } else if (counts[top]! >= 0) {
      if (c === COLON) {
        if (++counts[top]! > bounds.keysPerObject) return `JSON body has an object with more than ${bounds.keysPerObject} keys`;
        if (++total > bounds.totalValues) return tooMany;
      }
    } else if (c === COMMA) {
      if (++total > bounds.totalValues) return tooMany;
    }
  }
  return undefined;
}
