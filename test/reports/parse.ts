/** Test-only parsers: a strict RFC 4180 CSV reader and a small HTML tag scanner. */

/** Parse RFC 4180 CSV with CRLF records; throws on anything malformed. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  const n = text.length;
  if (n === 0) return rows;
  for (;;) {
    let cell = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= n) throw new Error('unterminated quoted field');
        const c = text[i]!;
        if (c === '"') {
          if (text[i + 1] === '"') {
            cell += '"';
            i += 2;
          } else {
            i++;
            break;
          }
        } else {
          cell += c;
          i++;
        }
      }
    } else {
      while (i < n && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
        if (text[i] === '"') throw new Error(`bare quote at ${i}`);
        cell += text[i];
        i++;
      }
    }
    row.push(cell);
    if (i >= n) throw new Error('last record has no CRLF');
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text[i] === '\r' && text[i + 1] === '\n') {
      rows.push(row);
      row = [];
      i += 2;
      if (i >= n) return rows;
      continue;
    }
    throw new Error(`unexpected ${JSON.stringify(text[i])} at ${i} (bare LF or CR?)`);
  }
}

export interface Tag {
  name: string;
  closing: boolean;
  attrs: Array<{ name: string; value: string | null }>;
  raw: string;
}

/**
 * Every tag in an HTML document. Sound for the renderer's output because every `<` and `>` that comes
 * from data is escaped: a raw `<` can only start real markup.
 */
export function tags(html: string): Tag[] {
  const out: Tag[] = [];
  for (const m of html.matchAll(/<(\/?)([a-zA-Z][\w:-]*)([^>]*)>/g)) {
    const attrs: Tag['attrs'] = [];
    for (const a of (m[3] ?? '').matchAll(/([^\s="'\/]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?/g)) {
      const v = a[2];
      attrs.push({ name: a[1]!.toLowerCase(), value: v === undefined ? null : v.replace(/^["']|["']$/g, '') });
    }
    out.push({ name: m[2]!.toLowerCase(), closing: m[1] === '/', attrs, raw: m[0] });
  }
  return out;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: '\u00a0' };

export function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, e: string) => ENTITIES[e]!);
}

/** The document's text: tags, style blocks and their content removed, entities decoded. */
export function textContent(html: string): string {
  return decodeEntities(html.replace(/<style>[\s\S]*?<\/style>/g, '').replace(/<[^>]*>/g, ''));
}
