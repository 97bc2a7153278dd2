/** JSON pointers inside a document's own references ("#/paths/~1invoices~1{invoice_id}/get"). */

/**
 * The tokens of a local reference's fragment (percent-decoded, then ~1 -> "/", ~0 -> "~", as RFC 6901
 * orders it), or undefined when the reference points into another document.
 */
export function localPointerTokens(ref: string): string[] | undefined {
  if (!ref.startsWith('#')) return undefined;
  const pointer = ref.slice(1);
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((token) => unescapeToken(percentDecode(token)));
}

function percentDecode(token: string): string {
  if (!token.includes('%')) return token;
  try {
    return decodeURIComponent(token);
  } catch {
    return token;
  }
}

function unescapeToken(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** The value a local reference points to in `root`, or undefined. */
export function resolveLocalRef(root: unknown, ref: string): unknown {
  const tokens = localPointerTokens(ref);
  if (!tokens) return undefined;
  let node = root;
  for (const token of tokens) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}
