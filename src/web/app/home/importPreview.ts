/**
 * The first row of a file to import, read in the browser so that the import dialog can name the
 * file's columns (to choose the primary one by its title). Only the first row is read: the server
 * reads the whole file, decides the titles and types, and refuses what it cannot take. Anything
 * this cannot read gives null, and the dialog then offers the first column only.
 */

export type ImportFormat = 'csv' | 'xlsx';

/** The first row's values as text, its blank values at the end left out; null when it cannot be read here. */
export async function firstRow(file: Blob, format: ImportFormat): Promise<string[] | null> {
  try {
    const row = format === 'csv' ? await csvFirstRow(file) : await xlsxFirstRow(file);
    if (row === null) return null;
    while (row.length > 0 && row[row.length - 1]!.trim() === '') row.pop();
    return row;
  } catch {
    return null;
  }
}

/** How much of a file is read for its first row. */
const HEAD_BYTES = 256 * 1024;

/** The first record of CSV text, as the server's reader splits records (commas, quotes with "" inside, \r\n, \n or \r). */
async function csvFirstRow(file: Blob): Promise<string[]> {
  const text = (await file.slice(0, HEAD_BYTES).text()).replace(/^\uFEFF/, '');
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') {
      fields.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') break;
    else field += ch;
  }
  fields.push(field);
  return fields;
}

// ---- XLSX: the zip's central directory, the workbook's first worksheet, its first row

interface ZipEntry { method: number; compressedSize: number; localOffset: number }

/** The zip's entries by name (a zip64 or a damaged zip: null). */
async function zipEntries(file: Blob): Promise<Map<string, ZipEntry> | null> {
  const tailStart = Math.max(0, file.size - (22 + 0xffff));
  const tail = new DataView(await file.slice(tailStart).arrayBuffer());
  let end = -1;
  for (let i = tail.byteLength - 22; i >= 0; i--) {
    if (tail.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) return null;
  const size = tail.getUint32(end + 12, true);
  const offset = tail.getUint32(end + 16, true);
  if (offset === 0xffffffff || offset + size > file.size) return null;
  const dir = new DataView(await file.slice(offset, offset + size).arrayBuffer());
  const names = new TextDecoder();
  const out = new Map<string, ZipEntry>();
  for (let p = 0; p + 46 <= dir.byteLength && dir.getUint32(p, true) === 0x02014b50;) {
    const nameLength = dir.getUint16(p + 28, true);
    const name = names.decode(new Uint8Array(dir.buffer, p + 46, nameLength));
    out.set(name, { method: dir.getUint16(p + 10, true), compressedSize: dir.getUint32(p + 20, true), localOffset: dir.getUint32(p + 42, true) });
    p += 46 + nameLength + dir.getUint16(p + 30, true) + dir.getUint16(p + 32, true);
  }
  return out;
}

/** A part of the zip as text, chunk by chunk (stopping early cancels the rest). */
async function* partText(file: Blob, e: ZipEntry): AsyncGenerator<string> {
  const local = new DataView(await file.slice(e.localOffset, e.localOffset + 30).arrayBuffer());
  if (local.byteLength < 30 || local.getUint32(0, true) !== 0x04034b50) throw new Error('not a zip entry');
  const start = e.localOffset + 30 + local.getUint16(26, true) + local.getUint16(28, true);
  let bytes: ReadableStream<BufferSource> = file.slice(start, start + e.compressedSize).stream();
  if (e.method === 8) bytes = bytes.pipeThrough(new DecompressionStream('deflate-raw'));
  else if (e.method !== 0) throw new Error('compression not known');
  const reader = bytes.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

async function wholePart(file: Blob, entries: Map<string, ZipEntry>, name: string): Promise<string | null> {
  const e = entries.get(name);
  if (!e) return null;
  let text = '';
  for await (const chunk of partText(file, e)) text += chunk;
  return text;
}

function decodeXml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (m, ent: string) => {
    const e = ent.toLowerCase();
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(Number(e.slice(1)));
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[e] ?? m;
  });
}

/** An element's attributes (prefixes left out). */
function attributes(tag: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of tag.matchAll(/([\w:.-]+)\s*=\s*("([^"]*)"|'([^']*)')/g)) out.set(m[1]!.replace(/^.*:/, ''), decodeXml(m[3] ?? m[4] ?? ''));
  return out;
}

/** The text of a shared string or an inline string: its runs' <t> joined (phonetic runs left out). */
function runsText(xml: string): string {
  return [...xml.replace(/<(\w+:)?rPh\b[\s\S]*?<\/(\w+:)?rPh>/g, '').matchAll(/<(?:\w+:)?t(?:\s[^>]*)?>([\s\S]*?)<\/(?:\w+:)?t>/g)].map((m) => decodeXml(m[1]!)).join('');
}

/** The part a relationship's Target names, from the part `from` whose relationships they are. */
function resolve(from: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = from.split('/').slice(0, -1);
  for (const seg of target.split('/')) {
    if (seg === '..') parts.pop();
    else if (seg !== '.') parts.push(seg);
  }
  return parts.join('/');
}

function relsOf(xml: string | null): Array<Map<string, string>> {
  return [...(xml ?? '').matchAll(/<(?:\w+:)?Relationship\b[^>]*>/g)].map((m) => attributes(m[0]));
}

/** Column letters (A, B, ..., AA) to a zero-based index. */
function columnIndex(ref: string): number {
  let n = 0;
  for (const ch of ref.replace(/\d+$/, '').toUpperCase()) n = n * 26 + ch.charCodeAt(0) - 64;
  return n - 1;
}

async function xlsxFirstRow(file: Blob): Promise<string[] | null> {
  const entries = await zipEntries(file);
  if (!entries) return null;
  const office = relsOf(await wholePart(file, entries, '_rels/.rels')).find((r) => r.get('Type')?.endsWith('/officeDocument'));
  const workbook = office ? resolve('', office.get('Target') ?? '') : 'xl/workbook.xml';
  const wbXml = await wholePart(file, entries, workbook);
  if (wbXml === null) return null;
  const relsPath = resolve(workbook, `_rels/${workbook.split('/').pop()}.rels`);
  const rels = relsOf(await wholePart(file, entries, relsPath));
  const firstSheet = /<(?:\w+:)?sheet\b[^>]*>/.exec(wbXml);
  const rid = firstSheet ? attributes(firstSheet[0]).get('id') : undefined;
  const sheetRel = rels.find((r) => r.get('Id') === rid);
  if (!sheetRel) return null;
  const sheet = entries.get(resolve(workbook, sheetRel.get('Target') ?? ''));
  if (!sheet) return null;
  // the first row with a cell; a row element is whole once its end tag (or its own />) is read
  let xml = '';
  let row: string | null = null;
  for await (const chunk of partText(file, sheet)) {
    xml += chunk;
    for (const m of xml.matchAll(/<(?:\w+:)?row\b[^>]*?(\/>|>([\s\S]*?)<\/(?:\w+:)?row>)/g)) {
      if (m[2] !== undefined && /<(?:\w+:)?c\b/.test(m[2])) {
        row = m[2];
        break;
      }
    }
    if (row !== null || xml.length > 8 * HEAD_BYTES) break;
  }
  if (row === null) return null;
  const cells: Array<{ at: number; type: string; inner: string }> = [];
  let next = 0;
  for (const m of row.matchAll(/<(?:\w+:)?c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/(?:\w+:)?c>)/g)) {
    const a = attributes(m[1]!);
    const at = a.has('r') ? columnIndex(a.get('r')!) : next;
    next = at + 1;
    cells.push({ at, type: a.get('t') ?? 'n', inner: m[2] ?? '' });
  }
  const value = (inner: string) => decodeXml(/<(?:\w+:)?v(?:\s[^>]*)?>([\s\S]*?)<\/(?:\w+:)?v>/.exec(inner)?.[1] ?? '');
  // the shared strings the row uses: read until the last of them
  const wanted = cells.filter((c) => c.type === 's').map((c) => Number(value(c.inner)));
  const shared: string[] = [];
  if (wanted.length > 0) {
    const rel = rels.find((r) => r.get('Type')?.endsWith('/sharedStrings'));
    const part = entries.get(rel ? resolve(workbook, rel.get('Target') ?? '') : 'xl/sharedStrings.xml');
    if (part) {
      const last = Math.max(...wanted);
      let text = '';
      for await (const chunk of partText(file, part)) {
        text += chunk;
        let end = 0;
        for (const m of text.matchAll(/<(?:\w+:)?si\b[^>]*?(?:\/>|>([\s\S]*?)<\/(?:\w+:)?si>)/g)) {
          shared.push(runsText(m[1] ?? ''));
          end = m.index + m[0].length;
        }
        text = text.slice(end);
        if (shared.length > last) break;
      }
    }
  }
  const out: string[] = [];
  for (const c of cells) {
    const v = c.type === 's' ? shared[Number(value(c.inner))] ?? ''
      : c.type === 'inlineStr' ? runsText(c.inner)
        : c.type === 'b' ? (value(c.inner) === '1' ? 'true' : 'false')
          : value(c.inner);
    while (out.length < c.at) out.push('');
    out[c.at] = v;
  }
  return out;
}
