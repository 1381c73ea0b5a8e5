/**
 * Content negotiation: the comma-separated, q-weighted lists of Accept and Accept-Encoding.
 */

/** The entries of an Accept-style header: each name (lower case) with its q (1 when absent). */
export function qualityList(header: string | string[] | undefined): Array<{ name: string; q: number }> {
  if (header === undefined) return [];
  const out: Array<{ name: string; q: number }> = [];
  for (const part of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    out.push({ name: name?.trim() ?? '', q: qp === undefined ? 1 : Number(qp.slice(2)) });
  }
  return out;
}

/** Whether the Accept header allows JSON (or one of the route's other media types). */
export function acceptable(accept: string | undefined, extra: string[] | undefined): boolean {
  if (!accept || accept.trim() === '') return true;
  // what the SDKs send on every request, answered without taking the header apart
  if (accept === 'application/json' || accept === '*/*') return true;
  const offered = ['application/json', ...(extra ?? [])];
  for (const { name: range, q } of qualityList(accept)) {
    if (!range || q === 0) continue;
    if (range === '*/*') return true;
    for (const t of offered) {
      const [type] = t.split('/');
      if (range === t || range === `${type}/*`) return true;
    }
  }
  return false;
}

/**
 * The export a Get Sheet's Accept header asks for: the media type it names with the highest q
 * (the first of equals) among JSON, CSV and Excel's; undefined for JSON.
 */
export function preferredExport(accept: string | undefined, excelTypes: readonly string[]): string | undefined {
  let best: { type: string; q: number } | undefined;
  for (const { name: type, q } of qualityList(accept)) {
    if (type !== 'text/csv' && type !== 'application/pdf' && type !== 'application/json' && !excelTypes.includes(type)) continue;
    if (best === undefined || q > best.q) best = { type, q };
  }
  if (best === undefined || !(best.q > 0) || best.type === 'application/json') return undefined;
  return best.type;
}

/** zlib level of compressed answers: the fastest. Of a 40 MB sheet body, level 1 took 73 ms and made 3.2 MB, the default level 6 took 255 ms for 2.7 MB. */
export const COMPRESSION_LEVEL = 1;

/** Does an Accept-Encoding header allow gzip (q above 0, by name or by `*`)? */
export function acceptsGzip(header: string | string[] | undefined, noCompression = false): boolean {
  if (noCompression) return false;
  let star: boolean | undefined;
  for (const { name, q } of qualityList(header)) {
    if (name === 'gzip' || name === 'x-gzip') return q > 0;
    if (name === '*') star = q > 0;
  }
  return star === true;
}
